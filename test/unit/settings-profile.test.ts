// Which profile is active: --profile, then ROSTER_PROFILE, then the config's defaultProfile, then "default".
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { saveConfig } from '../../src/config-file.js';
import { activeProfile, resolveSettings } from '../../src/settings.js';
import { tempDir } from '../helpers/context.js';

const config = {
  defaultProfile: 'east',
  profiles: { east: { baseUrl: 'https://east.example/v1' }, west: {} },
};

describe('activeProfile', () => {
  it('takes the flag, then the environment, then defaultProfile, then "default"', () => {
    expect(activeProfile({ profile: 'west' }, { ROSTER_PROFILE: 'north' }, config)).toEqual({
      name: 'west',
      source: '--profile',
    });
    expect(activeProfile({}, { ROSTER_PROFILE: 'north' }, config)).toEqual({
      name: 'north',
      source: 'ROSTER_PROFILE',
    });
    expect(activeProfile({}, { ROSTER_PROFILE: '' }, config)).toEqual({
      name: 'east',
      source: 'defaultProfile',
    });
    expect(activeProfile({}, {}, { profiles: {} })).toEqual({ name: 'default', source: 'built-in default' });
  });

  it('refuses a bad name and says where it came from', () => {
    expect(() => activeProfile({}, {}, { defaultProfile: '../x', profiles: {} })).toThrow(
      /Invalid profile name "..\/x" from defaultProfile/,
    );
  });
});

describe('resolveSettings', () => {
  it('uses the saved defaultProfile when neither flag nor environment names one', async () => {
    const dir = join(tempDir(), 'config');
    await saveConfig(dir, config);
    const settings = await resolveSettings({}, {}, dir);
    expect(settings.profileName).toBe('east');
    expect(settings.baseUrl).toBe('https://east.example/v1');
    expect((await resolveSettings({ profile: 'west' }, {}, dir)).profileName).toBe('west');
    expect((await resolveSettings({}, { ROSTER_PROFILE: 'west' }, dir)).profileName).toBe('west');
  });
});
