// `invite plan --grade`: a code that is neither the vocabulary's, one of its documented aliases nor a grade
// the school's students are in is a usage error listing the school's grades (before the district's users
// are read, nothing sent); a known grade nobody is in is a warning naming it. The built CLI against the
// sandbox (its elementary schools serve KG … 05, its middle school 06 … 08).
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { demoEnv, useSandbox } from '../helpers/sandbox.js';

const fixture = useSandbox();
/** `invite plan` of the schools' students in the grades (a --school, a --grade each), in a fresh HOME. */
const plan = (version: string, schools: string[], grades: string[], ...more: string[]) => {
  const picks = [...schools.flatMap((s) => ['--school', s]), ...grades.flatMap((g) => ['--grade', g])];
  return runCli(['invite', 'plan', '--oneroster', version, ...picks, ...more], tempDir(), {
    env: demoEnv(fixture.sandbox),
    timeoutMs: 60_000,
  });
};
const usersRead = () => fixture.sandbox.requests.filter((r) => r.path.endsWith('/users'));
const posts = () =>
  fixture.sandbox.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/invitations'));

describe.each(['1.1', '1.2'])('invite plan --grade (OneRoster %s)', (version) => {
  it('"kinder" is no documented alias: exit 2 listing the school\'s grades, the users never read', async () => {
    const result = await plan(version, ['Alder Elementary School'], ['kinder'], '--json');
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(
      'Error: --grade "kinder": not a grade code; the active students of Alder Elementary School are in grades KG, 01, 02, 03, 04, 05.',
    );
    expect(result.stderr).toContain('kindergarten is KG, also K, 00 or Kindergarten');
    expect(usersRead()).toHaveLength(0);
    expect(posts()).toHaveLength(0);
  });

  it('the documented aliases work: K, 00 and Kindergarten plan the same kindergartners', async () => {
    const plans = [];
    for (const grade of ['KG', 'K', '00', 'Kindergarten']) {
      const result = await plan(version, ['org-sch-1'], [grade], '--json');
      expect({ grade, code: result.code, stderr: result.stderr }).toMatchObject({ grade, code: 0 });
      expect(result.stderr).not.toContain('Warning');
      plans.push(JSON.parse(result.stdout).invitations);
    }
    expect(plans[0].length).toBeGreaterThan(0);
    for (const other of plans.slice(1)) expect(other).toEqual(plans[0]);
  });

  it('a known grade nobody is in: a warning naming it, exit 0; with others, only it is named', async () => {
    const result = await plan(version, ['Dogwood Middle School'], ['KG'], '--json');
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(
      'Warning: no one of the active students of Dogwood Middle School is in grade KG; the plan has none of that grade.',
    );
    expect(JSON.parse(result.stdout).invitations).toEqual([]);

    const mixed = await plan(version, ['org-sch-4'], ['06,12', '07'], '--json');
    expect(mixed.code).toBe(0);
    expect(mixed.stderr).toContain('is in grade 12;');
    expect(mixed.stderr).not.toMatch(/in grade 0[67]/);
    expect(JSON.parse(mixed.stdout).invitations.length).toBeGreaterThan(0);
  });

  it('unknown codes among good ones are all named; several schools list the grades of all', async () => {
    const result = await plan(version, ['org-sch-1', 'org-sch-4'], ['KG,first,Grade 8']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'Error: --grade "first", "Grade 8": not a grade code; the active students of Alder Elementary School, Dogwood Middle School are in grades KG, 01, 02, 03, 04, 05, 06, 07, 08.',
    );
    expect(usersRead()).toHaveLength(0);
  });
});
