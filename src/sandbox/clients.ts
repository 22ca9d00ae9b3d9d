// The seeded demo API clients of the sandbox: one per behaviour an admin or a test needs to see.
// Secrets are public on purpose (the sandbox prints them); they are never valid anywhere else.

/** OneRoster scope URIs (IMS purl form) for both standards versions. */
export const ONEROSTER_SCOPES: readonly string[] = ['v1p1', 'v1p2'].flatMap((version) =>
  ['roster-core.readonly', 'roster.readonly', 'roster-demographics.readonly'].map(
    (name) => `https://purl.imsglobal.org/spec/or/${version}/scope/${name}`,
  ),
);

/** The scope a client asks for to use attendance-daily (the spec leaves scope values open). */
export const ATTENDANCE_SCOPE = 'attendance';

export interface DemoClient {
  clientId: string;
  clientSecret: string;
  /** The label the district gave the client; returned by GET /attendance/status. */
  label: string;
  /** Whether attendance-daily is enabled (GET /attendance/status answers 200, else 403). */
  attendance: boolean;
  /** A suspended client authenticates but is refused a token with `invalid_grant`. */
  suspended: boolean;
  /** Scopes this client may request at a token endpoint (no scope at all is always fine). */
  scopes: readonly string[];
  /** One line saying what the client is for, printed by `roster sandbox`. */
  description: string;
}

/** Fresh copies each call, so one sandbox can never alter another's clients. */
export function demoClients(): DemoClient[] {
  return [
    {
      clientId: 'demo-allowed',
      clientSecret: 'riverside-secret-2024',
      label: 'Riverside Unified School District',
      attendance: true,
      suspended: false,
      scopes: [...ONEROSTER_SCOPES, ATTENDANCE_SCOPE],
      description: 'attendance-daily enabled; every endpoint works',
    },
    {
      clientId: 'demo-refused',
      clientSecret: 'lakeside-secret-2024',
      label: 'Lakeside County Schools',
      attendance: false,
      suspended: false,
      // Not allowed the attendance scope either: asking for it is `invalid_scope`.
      scopes: [...ONEROSTER_SCOPES],
      description: 'attendance-daily not enabled: GET /attendance/status answers 403',
    },
    {
      clientId: 'demo-special',
      // Every character that breaks naive HTTP Basic or form encoding: + / : % & = ! and a space.
      clientSecret: 'Sp3c+al/se:cr%et&x=y! z',
      label: 'Hillcrest Academy District',
      attendance: true,
      suspended: false,
      scopes: [...ONEROSTER_SCOPES, ATTENDANCE_SCOPE],
      description: 'secret with + / : % & = ! and a space (needs RFC 6749 §2.3.1 encoding for Basic)',
    },
    {
      clientId: 'demo-suspended',
      clientSecret: 'oldmill-secret-2024',
      label: 'Old Mill School District',
      attendance: true,
      suspended: true,
      scopes: [...ONEROSTER_SCOPES, ATTENDANCE_SCOPE],
      description: 'suspended by the operator: token requests fail with invalid_grant',
    },
  ];
}
