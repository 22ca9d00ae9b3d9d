// The layer rules (.dependency-cruiser.cjs) run in `npm test` over src/. Here they meet a small tree with
// one wrong import of each kind, to show that each fails with a message naming its rule.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const repo = resolve(import.meta.dirname, '../..');
const depcruise = join(repo, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');

const tree: Record<string, string> = {
  'tsconfig.json': JSON.stringify({ compilerOptions: { module: 'nodenext', strict: true } }),
  'src/cli.ts':
    "import './api/client.js';\nimport './misc/helper.js';\nimport './invite/send.js';\nimport './invite/ask.js';\nimport './prompter.js';\n",
  'src/demo.ts': "import './sandbox/server.js';\n",
  // The API floor reaching up to a command.
  'src/api/client.ts':
    "import { run } from '../commands/token.js';\nimport { now } from '../misc/clock.js';\nexport const client = [run, now];\n",
  'src/commands/token.ts':
    "import { style } from '../output/style.js';\nimport { ask } from '../prompter.js';\nexport const run = [style, ask];\n",
  // The sandbox reaching into the settings.
  'src/sandbox/server.ts': "import { settings } from '../settings.js';\nexport const server = settings;\n",
  'src/settings.ts': "import { style } from './output/style.js';\nexport const settings = style;\n",
  // Two foundations importing each other.
  'src/output/style.ts': "import { text } from './text.js';\nexport const style = text;\n",
  'src/output/text.ts': "import { style } from './style.js';\nexport const text = () => style;\n",
  // A folder no floor names.
  'src/misc/helper.ts': "export const helper = 1;\nimport '../output/text.js';\n",
  // A module on no floor that imports nothing: caught where it is imported.
  'src/misc/clock.ts': 'export const now = 1;\n',
  // The invite feature past the store's door (index.ts) to one of its files.
  'src/invite/send.ts':
    "import { journal } from './store/journal.js';\nimport { door } from './store/index.js';\nexport const send = [journal, door];\n",
  'src/invite/store/index.ts': "import { journal } from './journal.js';\nexport const door = journal;\n",
  'src/invite/store/journal.ts':
    "import { text } from '../../output/text.js';\nexport const journal = text;\n",
  // A feature asking a question itself: only commands (and the program) reach the prompter.
  'src/invite/ask.ts': "import { ask } from '../prompter.js';\nexport const question = ask;\n",
  'src/prompter.ts': 'export const ask = 1;\n',
  // A module nothing imports.
  'src/values.ts': 'export const unused = 1;\n',
};

let folder: string;
let result: { code: number; stdout: string };

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'roster-layers-'));
  for (const [path, text] of Object.entries(tree)) {
    await mkdir(dirname(join(folder, path)), { recursive: true });
    await writeFile(join(folder, path), text);
  }
  result = await promisify(execFile)(
    process.execPath,
    [depcruise, 'src', '--config', join(repo, '.dependency-cruiser.cjs'), '--output-type', 'err-long'],
    { cwd: folder },
  ).then(
    ({ stdout }) => ({ code: 0, stdout }),
    (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
  );
});

afterAll(() => rm(folder, { recursive: true, force: true }));

describe('the layer rules', () => {
  it('fail the run', () => {
    expect(result.code).not.toBe(0);
  });

  it.each([
    [
      'layer-api',
      'src/api/client.ts → src/commands/token.ts',
      'The api floor imports only the floors below it',
    ],
    ['sandbox-own-floor', 'src/sandbox/server.ts → src/settings.ts', 'it imports only the foundations'],
    ['on-a-floor', 'src/misc/helper.ts → src/output/text.ts', 'Every module of src/ belongs to a floor'],
    ['imports-on-a-floor', 'src/api/client.ts → src/misc/clock.ts', 'that is imported belongs to a floor'],
    ['no-circular', 'src/output/style.ts →', 'one direction only'],
    ['no-orphans', 'src/values.ts', 'dead code'],
    ['invite-store-one-door', 'src/invite/send.ts → src/invite/store/journal.ts', 'is entered through its'],
    [
      'features-own-no-terminal',
      'src/invite/ask.ts → src/prompter.ts',
      'Features return data or take callbacks',
    ],
  ])('name %s, the import and why', (rule, where, why) => {
    const line = result.stdout.split('\n').find((text) => text.includes(`error ${rule}: ${where}`));
    expect(line, result.stdout).toBeDefined();
    expect(result.stdout).toContain(why);
  });

  it('let the right imports pass', () => {
    expect(result.stdout).not.toContain('src/commands/token.ts → src/output/style.ts');
    // The program's imports are all right but for the module on no floor.
    expect(result.stdout).not.toMatch(/src\/(cli|demo)\.ts → (?!src\/misc\/)/);
    expect(result.stdout).not.toContain('src/invite/send.ts → src/invite/store/index.ts');
    expect(result.stdout).not.toContain('src/commands/token.ts → src/prompter.ts');
    expect(result.stdout).not.toContain('src/cli.ts → src/prompter.ts');
    expect(result.stdout).toContain('9 dependency violations');
  });
});
