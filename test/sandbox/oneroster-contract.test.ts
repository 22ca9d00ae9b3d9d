// Contract: what the sandbox serves validates against the official OneRoster OpenAPI definitions in
// test/fixtures/oneroster/ (provenance in its README) — every GET path of the rostering service that the sandbox implements, for
// 1.1 and 1.2, with the 200 schema the definition gives that path (and 1.2 error schemas for errors).
// A small JSON-schema subset validator keeps this free of dependencies.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { seededDistrict } from '../../src/sandbox/oneroster/index.js';
import { sandboxSchoolYear } from '../helpers/sandbox.js';
import { client } from './oneroster-helpers.js';

/** The school year the sandbox serves today (its sessions' ids). */
const SY = sandboxSchoolYear();

type Schema = Record<string, unknown>;
interface OpenApi {
  paths: Record<
    string,
    { get?: { responses: Record<string, { content?: Record<string, { schema: Schema }> }> } }
  >;
  components: { schemas: Record<string, Schema> };
}

const REF_DIR = new URL('../fixtures/oneroster/', import.meta.url);
const load = (file: string): OpenApi => JSON.parse(readFileSync(new URL(file, REF_DIR), 'utf8')) as OpenApi;
const SPECS = {
  '1.1': load('oneroster-v1p1-openapi3-strongmind-derived.json'),
  '1.2': load('oneroster-v1p2-rostersservice_openapi3_v1p0.json'),
};

const FORMATS: Record<string, RegExp> = {
  'date-time': /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/,
  date: /^\d{4}-\d{2}-\d{2}$/,
  uri: /^[a-z][a-z0-9+.-]*:\/\/\S+$/i,
};

/** Validates a value against the subset of JSON schema the OneRoster files use; returns error strings. */
function validate(spec: OpenApi, schema: Schema, value: unknown, path = '$'): string[] {
  if (typeof schema.$ref === 'string') {
    const name = schema.$ref.replace('#/components/schemas/', '');
    const target = spec.components.schemas[name];
    if (!target) return [`${path}: unresolved $ref ${schema.$ref}`];
    return validate(spec, target, value, path);
  }
  const errors: string[] = [];
  if (Array.isArray(schema.allOf)) {
    for (const part of schema.allOf as Schema[]) errors.push(...validate(spec, part, value, path));
  }
  if (Array.isArray(schema.anyOf)) {
    const ok = (schema.anyOf as Schema[]).some((part) => validate(spec, part, value, path).length === 0);
    if (!ok) errors.push(`${path}: matches none of anyOf (${JSON.stringify(value)})`);
  }
  if (typeof schema.type === 'string' && !hasType(value, schema.type)) {
    return [...errors, `${path}: expected ${schema.type}, got ${value === null ? 'null' : typeof value}`];
  }
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) {
    errors.push(`${path}: ${JSON.stringify(value)} not in enum ${JSON.stringify(schema.enum)}`);
  }
  if (typeof value === 'string') {
    const format = typeof schema.format === 'string' ? FORMATS[schema.format] : undefined;
    if (format && !format.test(value)) errors.push(`${path}: "${value}" is not a ${schema.format}`);
    if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern).test(value)) {
      errors.push(`${path}: "${value}" does not match ${schema.pattern}`);
    }
  }
  if (Array.isArray(value)) {
    if (typeof schema.minItems === 'number' && value.length < schema.minItems) {
      errors.push(`${path}: fewer than ${schema.minItems} items`);
    }
    if (schema.items)
      for (const [i, v] of value.entries())
        errors.push(...validate(spec, schema.items as Schema, v, `${path}[${i}]`));
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const obj = value as Record<string, unknown>;
    const props = (schema.properties ?? {}) as Record<string, Schema>;
    for (const key of (schema.required ?? []) as string[]) {
      if (!(key in obj)) errors.push(`${path}: missing required ${key}`);
    }
    for (const [key, v] of Object.entries(obj)) {
      const prop = props[key];
      if (prop) errors.push(...validate(spec, prop, v, `${path}.${key}`));
      else if (schema.additionalProperties === false) errors.push(`${path}: unexpected property ${key}`);
    }
  }
  return errors;
}

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case 'object':
      return value !== null && typeof value === 'object' && !Array.isArray(value);
    case 'array':
      return Array.isArray(value);
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number';
    default:
      return typeof value === type;
  }
}

const STUDENTS = 240;
const d = seededDistrict({ students: STUDENTS });
const firstClassOfSchool1 = d.classes[d.schoolClassStart[0]!]!.sourcedId;
/** Values for the path parameters of the OpenAPI templates. */
const PARAMS: Record<string, string> = {
  schoolSourcedId: 'org-sch-1',
  classSourcedId: firstClassOfSchool1,
  courseSourcedId: d.courses[0]!.sourcedId,
  studentSourcedId: 'stu-000001',
  teacherSourcedId: 'tch-00001',
  termSourcedId: `${SY.year}-t1`,
  userSourcedId: 'tch-00001',
};
const SINGLE_IDS: Record<string, string> = {
  academicSessions: SY.year,
  classes: firstClassOfSchool1,
  courses: d.courses[0]!.sourcedId,
  demographics: 'stu-000001',
  enrollments: 'enr-stu-000001-MATH',
  gradingPeriods: `${SY.year}-gp1`,
  orgs: 'org-district',
  schools: 'org-sch-1',
  students: 'stu-000002',
  teachers: 'tch-00002',
  terms: `${SY.year}-t2`,
  users: 'adm-001',
};
/** Gradebook and resources paths in the 1.1 file: not rostering, not served by the sandbox. */
const NOT_ROSTERING = /categories|lineItems|results|resources/;

function served(spec: OpenApi): [template: string, path: string, schema: Schema][] {
  const out: [string, string, Schema][] = [];
  for (const [template, item] of Object.entries(spec.paths)) {
    const schema = item.get?.responses['200']?.content?.['application/json']?.schema;
    if (!schema || NOT_ROSTERING.test(template)) continue;
    const collection = template.split('/')[1]!;
    const path = template.replace(/\{(\w+)\}/g, (_, name: string) =>
      encodeURIComponent(name === 'sourcedId' ? SINGLE_IDS[collection]! : PARAMS[name]!),
    );
    out.push([template, path, schema]);
  }
  return out;
}

for (const version of ['1.1', '1.2'] as const) {
  describe(`OneRoster ${version} contract`, () => {
    const spec = SPECS[version];
    // 1.1's schema says enabledUser is a boolean; the default sandbox mixes in strings (as 1.1 servers in the
    // field do), so the strict contract runs with booleans and the mix is checked separately below.
    const get = client(version, { students: STUDENTS, enabledUser11: 'boolean', link: 'none' });
    const paths = served(spec);

    it('covers the rostering paths of the definition', () => {
      expect(paths.length).toBeGreaterThanOrEqual(39);
    });

    for (const [template, path, schema] of paths) {
      it(`GET ${template} validates`, async () => {
        const res = await get(path, 'limit=5000');
        expect(res.status, path).toBe(200);
        const errors = validate(spec, schema, res.body);
        expect(errors.slice(0, 10), path).toEqual([]);
        const list = Object.values(res.body)[0];
        if (Array.isArray(list) && !/gradingPeriods|terms\/|teachers$/.test(template)) {
          expect(list.length, `${path} is empty`).toBeGreaterThan(0);
        }
      });
    }

    it('error bodies validate against the 1.2 imsx_StatusInfo schema', async () => {
      const status = SPECS['1.2'].components.schemas.imsx_StatusInfoDType!;
      for (const [path, query] of [
        ['/students/nobody', ''],
        ['/students', 'filter=shoeSize%3D%279%27'],
        ['/students', 'filter=givenName'],
        ['/students', 'limit=0'],
      ] as const) {
        const res = await get(path, query);
        expect(res.status).toBeGreaterThanOrEqual(400);
        expect(validate(SPECS['1.2'], status, res.body), `${path}?${query}`).toEqual([]);
      }
    });
  });
}

describe('contract details', () => {
  it('default 1.1 data differs from the 1.1 schema only in string enabledUser values', async () => {
    const get = client('1.1', { students: STUDENTS });
    const res = await get('/users', 'limit=5000');
    const errors = validate(SPECS['1.1'], { $ref: '#/components/schemas/Users.Type' }, res.body);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.filter((e) => !/\.enabledUser: expected boolean, got string$/.test(e))).toEqual([]);
  });

  it.each(['1.1', '1.2'] as const)(
    'the families validate too: a guardian and a student with agents (%s)',
    async (version) => {
      const get = client(version, { students: STUDENTS, enabledUser11: 'boolean' });
      const ref = version === '1.1' ? 'SingleUser.Type' : 'SingleUserDType';
      for (const id of ['gdn-000001', 'gdn-000013', 'stu-000001']) {
        const res = await get(`/users/${id}`);
        expect((res.body.user as { agents: unknown[] }).agents.length, id).toBeGreaterThan(0);
        expect(validate(SPECS[version], { $ref: `#/components/schemas/${ref}` }, res.body), id).toEqual([]);
      }
    },
  );

  it('1.2 records carry only properties the 1.2 schema declares (additionalProperties: false)', async () => {
    const get = client('1.2', { students: STUDENTS });
    for (const [path, ref] of [
      ['/users', 'UserSetDType'],
      ['/enrollments', 'EnrollmentSetDType'],
      ['/demographics', 'DemographicsSetDType'],
    ] as const) {
      const res = await get(path, 'limit=5000');
      expect(validate(SPECS['1.2'], { $ref: `#/components/schemas/${ref}` }, res.body)).toEqual([]);
    }
  });

  it('the validator catches violations', () => {
    const spec = SPECS['1.2'];
    const user = { $ref: '#/components/schemas/UserDType' };
    expect(validate(spec, user, { sourcedId: 'x' }).join()).toMatch(/missing required status/);
    expect(validate(spec, user, { extra: 1 }).join()).toMatch(/unexpected property extra/);
    const org = { $ref: '#/components/schemas/OrgDType' };
    const bad = {
      sourcedId: 'o',
      status: 'gone',
      dateLastModified: 'yesterday',
      name: 'n',
      type: 'x',
      identifier: 'i',
    };
    const errors = validate(spec, org, bad).join('\n');
    expect(errors).toMatch(/not in enum/);
    expect(errors).toMatch(/not a date-time/);
    expect(errors).toMatch(/anyOf/);
  });
});
