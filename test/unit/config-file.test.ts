import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configPath, loadConfig, saveConfig } from '../../src/config-file.js';
import { tempDir } from '../helpers/context.js';
import { failure } from '../helpers/errors.js';

describe('config', () => {
  it('is empty when there is no file', async () => {
    expect(await loadConfig(join(tempDir(), 'config'))).toEqual({ profiles: {} });
  });

  it('round-trips profiles and writes atomically with mode 0600', async () => {
    const dir = join(tempDir(), 'config');
    const config = {
      defaultProfile: 'east',
      profiles: {
        east: {
          baseUrl: 'https://east.example/v1',
          clientId: 'e',
          clientAuth: 'post' as const,
          tokenEndpoints: { general: 'v1p1' },
        },
      },
    };
    await saveConfig(dir, config);
    expect(await loadConfig(dir)).toEqual(config);
    expect(statSync(configPath(dir)).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['config.json']); // no temporary file left behind
    await saveConfig(dir, { profiles: {} });
    expect(JSON.parse(readFileSync(configPath(dir), 'utf8'))).toEqual({ profiles: {} });
  });

  it('names the file and the problem when it is corrupt', async () => {
    const dir = join(tempDir(), 'config');
    await mkdir(dir, { recursive: true });
    const cases: [string, RegExp][] = [
      ['{"profiles": ', /cannot be read: .*JSON/],
      ['[]', /expected an object with "profiles"/],
      ['{"profiles": []}', /expected an object with "profiles"/],
      ['{"profiles": {"east": 3}}', /profile "east" is not an object/],
      ['{"profiles": {"east": {"baseUrl": 42}}}', /profile "east": "baseUrl" has the wrong type/],
    ];
    for (const [text, why] of cases) {
      writeFileSync(configPath(dir), text);
      const error = await failure(loadConfig(dir));
      expect(error.code).toBe('failure');
      expect(error.message).toContain(`The config file ${configPath(dir)} cannot be read`);
      expect(error.message).toMatch(why);
      expect(error.hint).toMatch(/roster login/);
    }
  });
});
