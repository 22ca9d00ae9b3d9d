// The sandbox's "sent" e-mail: kept in memory (GET /__sandbox/outbox) and, when a folder is given, written
// as .eml files an admin can open in any mail client. Nothing is ever really sent.
import { join } from 'node:path';
import { writePrivateFile } from '../files.js';

export interface SentEmail {
  id: string;
  invitationId: string;
  from: string;
  to: string;
  subject: string;
  text: string;
  /** The enrollment link with the guest access token: this is the only place the guest token appears. */
  enrollmentLink: string;
  guestTokenExpiresAt: string;
  createdAt: string;
  /** Where the .eml copy was written, when the sandbox has an outbox folder. */
  emlPath?: string;
}

export const SENDER = 'Enrollment Office <no-reply@roster-sandbox.invalid>';

export class Outbox {
  readonly sent: SentEmail[] = [];

  constructor(private readonly dir?: string) {}

  /** Records the e-mail and, with a folder, writes it before the API answers, so a caller can read it at once. */
  async deliver(email: SentEmail): Promise<void> {
    if (this.dir !== undefined) {
      const stamp = email.createdAt.replace(/[-:]/g, '').replace(/\.\d+/, '');
      const path = join(this.dir, `${stamp}-${email.invitationId}.eml`);
      // 0600: the file carries a guest token that opens a child's enrollment form.
      await writePrivateFile(path, toEml(email));
      email.emlPath = path;
    }
    this.sent.push(email);
  }
}

/** RFC 5322 message text with CRLF line ends; header values are safe because the address was validated. */
export function toEml(email: SentEmail): string {
  const headers = [
    `From: ${email.from}`,
    `To: <${email.to}>`,
    `Subject: ${email.subject}`,
    `Date: ${new Date(email.createdAt).toUTCString().replace('GMT', '+0000')}`,
    `Message-ID: <${email.id}@roster-sandbox.invalid>`,
    `X-Roster-Invitation-Id: ${email.invitationId}`,
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: 8bit',
  ];
  return `${headers.join('\r\n')}\r\n\r\n${email.text.replace(/\r?\n/g, '\r\n')}\r\n`;
}
