// GET /attendance/status (spec §4.7, §2.7): the go-live check of token authentication for attendance-daily.
import type { DemoClient } from './clients.js';
import type { ResourceRoute } from './types.js';

export function createAttendanceRoute(clients: readonly DemoClient[]): ResourceRoute {
  return (req, caller) => {
    if (req.path !== '/attendance/status') return undefined;
    if (req.method !== 'GET') {
      return { status: 405, headers: { Allow: 'GET' }, body: { message: 'Use GET for /attendance/status' } };
    }
    const client = clients.find((c) => c.clientId === caller.clientId);
    if (!client?.attendance) {
      return {
        status: 403,
        body: {
          status: 403,
          message:
            'Token authentication works, but attendance-daily is not enabled for this API client. Ask the district administrator to enable it.',
        },
      };
    }
    return { status: 200, body: { success: true, clientLabel: caller.label } };
  };
}
