// An invitation's identity in the record and the claims: who it is for, spelled one way.

/** An invitation as its identity spells it: the e-mail trimmed and in lower case, school, school year. */
export interface InvitationParts {
  email: string;
  schoolId: string;
  schoolYearId?: string;
}

/**
 * The identity of an invitation: the e-mail trimmed and in lower case, the school and the school year
 * (trimmed; '' when none), as one string. JSON keeps the three apart whatever they hold (ids may hold
 * spaces), so two different invitations never share an identity.
 */
export function invitationIdentity(email: string, schoolId: string, schoolYearId?: string | null): string {
  return JSON.stringify([email.trim().toLowerCase(), schoolId.trim(), (schoolYearId ?? '').trim()]);
}

/** The parts of an identity (invitationIdentity), as it spells them. */
export function identityParts(identity: string): InvitationParts {
  const [email = '', schoolId = '', schoolYearId = ''] = JSON.parse(identity) as string[];
  return { email, schoolId, ...(schoolYearId !== '' && { schoolYearId }) };
}
