// Where a profile's OneRoster service lives: the version's prefix (or the profile's override) and the
// version's own token purpose.
import { describe, expect, it } from 'vitest';
import type { ResourceRequest } from '../../src/api/client.js';
import type { Profile } from '../../src/config-file.js';
import { checkPrefix, onerosterService } from '../../src/oneroster/service.js';
import type { Session } from '../../src/session.js';

function session(version: '1.1' | '1.2', profile: Profile, sent: ResourceRequest[]): Session {
  const api = {
    send: async (request: ResourceRequest) => {
      sent.push(request);
      return { status: 200, headers: {}, body: '{}', url: '' };
    },
  };
  return {
    baseUrl: 'https://api.example.org/v1',
    settings: { oneroster: version, profile },
    api,
  } as unknown as Session;
}

describe('onerosterService', () => {
  it('uses the version prefix and token purpose', async () => {
    const sent: ResourceRequest[] = [];
    const service = onerosterService(session('1.2', {}, sent));
    expect(service.prefix).toBe('/ims/oneroster/v1p2');
    await service.send('/ims/oneroster/v1p2/students', 'limit=1', 'Reading students');
    expect(sent[0]).toEqual({
      method: 'GET',
      path: '/ims/oneroster/v1p2/students',
      query: 'limit=1',
      purpose: 'oneroster-1.2',
      what: 'Reading students',
    });
    expect(onerosterService(session('1.1', {}, sent)).prefix).toBe('/ims/oneroster/v1p1');
  });

  it("takes the profile's prefix for vendors that serve elsewhere", () => {
    const profile: Profile = { onerosterPaths: { '1.2': '/ims/oneroster/rostering/v1p2/' } };
    expect(onerosterService(session('1.2', profile, [])).prefix).toBe('/ims/oneroster/rostering/v1p2');
    expect(onerosterService(session('1.1', profile, [])).prefix).toBe('/ims/oneroster/v1p1');
  });

  it('refuses a prefix that is not a path', () => {
    for (const bad of ['ims/oneroster', '/a b', '/x/../y', 'https://other/ims']) {
      expect(() => checkPrefix(bad, '1.1')).toThrow(/Invalid OneRoster 1.1 path prefix/);
    }
  });
});
