// GET /attendance/status (spec §4.7, §2.7).
import { ApiError } from '../errors.js';
import { printable } from '../values.js';
import type { ApiClient } from './client.js';
import { isRecord, messageOf, parseJson, unexpectedResponse } from './errors.js';

export interface AttendanceStatus {
  success: boolean;
  clientLabel: string;
  [field: string]: unknown;
}

export async function attendanceStatus(api: ApiClient): Promise<AttendanceStatus> {
  const what = 'Attendance check';
  const response = await api.send({ method: 'GET', path: '/attendance/status', purpose: 'general', what });
  const body = parseJson(response.body);
  if (!isRecord(body) || typeof body.clientLabel !== 'string') {
    throw unexpectedResponse(response, what, 'a JSON body with success and clientLabel');
  }
  if (body.success !== true) {
    throw new ApiError(
      'api',
      response.status,
      `${what}: the server answered success=${printable(String(body.success), 300)} for "${printable(body.clientLabel, 300)}".`,
      undefined,
      messageOf(body),
    );
  }
  return body as AttendanceStatus;
}
