// GET /enroll?token=<guest token>: where the invitation e-mail's link lands, so a demo can follow it.
// The real service shows the enrollment form; the sandbox shows which invitation the guest token opens.
import type { InvitationStore } from './invitations.js';
import type { SandboxResponse } from './types.js';

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function enrollmentPage(
  store: InvitationStore,
  method: string,
  query: URLSearchParams,
  nowMs: number,
): SandboxResponse {
  const html = (status: number, title: string, lines: string[]): SandboxResponse => ({
    status,
    headers: {
      'Content-Type': 'text/html; charset=utf-8',
      'Cache-Control': 'no-store',
      'Referrer-Policy': 'no-referrer',
    },
    body: `<!doctype html>\n<title>${escapeHtml(title)}</title>\n<h1>${escapeHtml(title)}</h1>\n${lines.map((l) => `<p>${escapeHtml(l)}</p>`).join('\n')}\n`,
  });
  if (method !== 'GET')
    return { status: 405, headers: { Allow: 'GET' }, body: { message: 'Use GET for /enroll' } };
  const record = store.byGuestToken(query.get('token') ?? '', nowMs);
  if (!record) return html(404, 'Link not valid', ['This enrollment link is unknown or has expired.']);
  return html(200, 'Student enrollment form (sandbox)', [
    `Invitation ${record.id} for ${record.email}: ${record.studentCount} student(s) at school ${record.schoolId}.`,
    `The guest link works until ${record.guestTokenExpiresAt}. The real service shows the enrollment form here.`,
  ]);
}
