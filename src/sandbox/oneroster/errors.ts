// OneRoster error responses. Both versions answer with the 1.2 imsx_StatusInfo shape (the one the notes
// describe), so a client sees one error format from the sandbox whatever version it speaks.
import type { SandboxResponse } from '../types.js';

export type CodeMinor =
  | 'invalid_filter_field'
  | 'invalid_selection_field'
  | 'invalid_sort_field'
  | 'invaliddata'
  | 'unauthorisedrequest'
  | 'forbidden'
  | 'unknownobject'
  | 'server_busy'
  | 'internal_server_error';

export function statusInfo(
  description: string,
  codeMinor: CodeMinor,
  severity: 'error' | 'warning' = 'error',
): Record<string, unknown> {
  return {
    imsx_codeMajor: severity === 'error' ? 'failure' : 'success',
    imsx_severity: severity,
    imsx_description: description,
    imsx_CodeMinor: {
      imsx_codeMinorField: [
        { imsx_codeMinorFieldName: 'TargetEndSystem', imsx_codeMinorFieldValue: codeMinor },
      ],
    },
  };
}

export function errorResponse(
  status: number,
  description: string,
  codeMinor: CodeMinor,
  headers: Record<string, string> = {},
): SandboxResponse {
  return {
    status,
    headers: { 'Content-Type': 'application/json', ...headers },
    body: statusInfo(description, codeMinor),
  };
}

/** A request error raised while parsing; the route turns it into a 400 (or the given status). */
export class OneRosterError extends Error {
  constructor(
    message: string,
    readonly codeMinor: CodeMinor,
    readonly status = 400,
  ) {
    super(message);
  }
}
