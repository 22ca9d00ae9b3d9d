// Limits shared by the campaign planner and the go-live audit, so both call the same family "too large".

/**
 * More children than this for one e-mail at one school is taken for a data error (a staff address on every
 * student, a teacher entered as a guardian), not a family: the plan warns and lists them, the audit reports
 * them as `guardian-many-students`. The largest real families stay well below it.
 */
export const DEFAULT_MAX_CHILDREN_PER_EMAIL = 12;
