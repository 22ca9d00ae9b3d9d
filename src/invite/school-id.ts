// An invitation whose schoolId was typed as a school's name or identifier, rebuilt with the sourcedId it
// resolved to. That id came from the server, so it passes the same checks as a typed one: a hostile list
// cannot slip a control character (or an overlong id) into a request that the typed value would not.
import { printable } from '../values.js';
import { type InvitationDraft, type Validation, validateInvitation } from './invitation.js';

export function withResolvedSchool(draft: InvitationDraft, typed: string, sourcedId: string): Validation {
  const checked = validateInvitation({ ...draft, schoolId: sourcedId });
  if (checked.ok) return checked;
  return {
    ok: false,
    problems: checked.problems.map((p) =>
      p.field === 'schoolId'
        ? {
            ...p,
            reason: `"${printable(typed.trim(), 80)}" is the school with sourcedId "${printable(sourcedId, 60)}", which ${p.reason}`,
          }
        : p,
    ),
  };
}
