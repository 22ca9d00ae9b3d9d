// The audit's report forms as units: what reaches a CSV cell or an HTML page from hostile server text.
import { describe, expect, it } from 'vitest';
import type { AuditResult } from '../../src/audit/audit.js';
import { auditHtml } from '../../src/audit/html.js';
import { auditJson, examplesOf, findingCsv } from '../../src/audit/output.js';

const hostile = {
  collection: 'users' as const,
  sourcedId: '=HYPERLINK("http://evil.example","x")',
  detail: '<script>alert(1)</script>\u001b[31m "quoted" & more',
  schools: ['org-sch-1'],
};

const result: AuditResult = {
  findings: [{ check: 'invalid-email', severity: 'warning', count: 1, records: [hostile] }],
  notChecked: [],
  schools: [
    {
      sourcedId: 'org-sch-1',
      name: '<b>Alder</b>',
      students: 4,
      withGuardianEmail: 3,
      classes: 2,
      classesWithTeacher: 1,
    },
  ],
  read: { orgs: 1, academicSessions: 0, courses: 0, classes: 2, users: 4, enrollments: 0 },
};
const meta = { version: '1.1', date: '2026-01-15', schools: null, failOn: 'error' as const };

describe('audit outputs', () => {
  it("the summary's examples name each record once, then how many findings are left", () => {
    const of = (...ids: string[]) => ({
      check: 'agent-not-guardian' as const,
      severity: 'warning' as const,
      count: ids.length,
      records: ids.map((sourcedId) => ({ ...hostile, sourcedId })),
    });
    expect(examplesOf(of('stu-37', 'stu-37', 'stu-38'))).toBe('stu-37, stu-38');
    expect(examplesOf(of('stu-37', 'stu-37', 'stu-38', 'stu-39', 'stu-40'))).toBe(
      'stu-37, stu-38, stu-39, … (1 more)',
    );
    expect(examplesOf(of('a', 'b', 'c', 'd'))).toBe('a, b, c, … (1 more)');
  });
  it('a record about a person names them beside its sourcedId: terminal, CSV, JSON and HTML', () => {
    const person = { name: 'Zoë Åkesson', school: 'Alder Elementary School' };
    const record = { ...hostile, sourcedId: 'stu-000001', detail: 'grade 13', person };
    const finding = {
      check: 'invalid-grade' as const,
      severity: 'warning' as const,
      count: 1,
      records: [record],
    };
    expect(examplesOf(finding)).toBe('stu-000001 (Zoë Åkesson, Alder Elementary School)');
    expect(findingCsv(finding).split('\n')[1]).toBe(
      'invalid-grade,warning,users,stu-000001,Zoë Åkesson,Alder Elementary School,grade 13',
    );
    const json = auditJson({ ...result, findings: [finding] }, meta);
    expect(json.findings[0]?.records).toEqual([
      {
        collection: 'users',
        sourcedId: 'stu-000001',
        name: person.name,
        school: person.school,
        detail: 'grade 13',
      },
    ]);
    expect(auditHtml(json)).toContain(
      '<td>stu-000001</td><td>Zoë Åkesson</td><td>Alder Elementary School</td><td>grade 13</td>',
    );
  });

  it('a CSV cell that would run as a formula is quoted off; every record is a row', () => {
    const csv = findingCsv(result.findings[0] as AuditResult['findings'][number]);
    expect(csv.split('\n')[0]).toBe('check,severity,collection,sourcedId,name,school,detail');
    expect(csv).toContain(`invalid-email,warning,users,"'=HYPERLINK(""http://evil.example"",""x"")",`);
    // A server's escape sequence is shown escaped, as on the terminal, never written raw.
    expect(csv).toContain('<script>alert(1)</script>\\u001b[31m');
    expect(csv).not.toContain('\u001b');
  });

  it('the JSON keeps every record and a share per school, without the schools used for --school', () => {
    const json = auditJson(result, meta);
    expect(json.findings[0]?.records).toEqual([
      { collection: 'users', sourcedId: hostile.sourcedId, detail: hostile.detail },
    ]);
    expect(json.summary.perSchool[0]?.guardianEmailShare).toBe(0.75);
    expect(json.summary.counts).toEqual({ error: 0, warning: 1, info: 0 });
  });

  it('the HTML escapes server text, drops control characters and fetches nothing', () => {
    const html = auditHtml(auditJson(result, meta));
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('<b>Alder');
    expect(html).not.toContain('\u001b');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;[31m &quot;quoted&quot; &amp; more');
    expect(html).toContain('&lt;b&gt;Alder&lt;/b&gt;');
    expect(html).not.toMatch(/\s(src|href)=/i);
    // One script: the page's own filter.
    expect(html.match(/<script>/g)).toHaveLength(1);
  });
});
