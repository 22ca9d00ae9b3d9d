// Functions a reader holds in one breath: Biome's noExcessiveLinesPerFunction and
// noExcessiveCognitiveComplexity (limits in rules.json) over src/, against baseline.json, the functions over
// them today, which may only shrink. `npm run lint` runs it from the repository's root:
//   node .ci/function-size/check.mjs           fails naming each function new over a limit, grown past its
//                                              recorded size, or back within the limit (delete its line)
//   node .ci/function-size/check.mjs --print   prints the functions over a limit now, as a baseline
//   node .ci/function-size/check.mjs --write   writes them into the baseline (after a merge, say)
// Options: --baseline FILE (default .ci/function-size/baseline.json), --src FOLDER (default src).
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { functionNameAt } from './names.mjs';

const RULES = join(import.meta.dirname, 'rules.json');
const BIOME = createRequire(import.meta.url).resolve('@biomejs/biome/bin/biome');
const LINES = 'noExcessiveLinesPerFunction';
const COMPLEXITY = 'noExcessiveCognitiveComplexity';
const OUTSIDE = 'outside the sandbox (goal: none)';
const SANDBOX = 'the sandbox (src/sandbox/)';
const ABOUT =
  'Functions over the limits of .ci/function-size/rules.json today, by rule: "file: function": size. ' +
  '`npm run lint` fails on any other, on one grown past its size here, and on one back within the limit ' +
  '(delete its line). `npm run function-size -- --write` rewrites this file from the code.';

async function limits() {
  const { complexity } = JSON.parse(await readFile(RULES, 'utf8')).linter.rules;
  return {
    [LINES]: complexity[LINES].options.maxLines,
    [COMPLEXITY]: complexity[COMPLEXITY].options.maxAllowedComplexity,
  };
}

/** Biome's report of the two rules over a folder (it exits 1 when it finds any). */
async function biomeReport(src) {
  const args = [BIOME, 'lint', '--config-path', RULES, '--reporter=json', '--max-diagnostics=none', src];
  const output = await promisify(execFile)(process.execPath, args, { maxBuffer: 64 * 1024 * 1024 }).catch(
    (error) => error,
  );
  try {
    return JSON.parse(output.stdout);
  } catch {
    throw new Error(`biome lint gave no report:\n${output.stderr ?? output.message}`);
  }
}

/** The functions over a limit now: { rule, key: "file: function", size }. */
async function measure(src) {
  const texts = new Map();
  const found = [];
  for (const { category, message, location } of (await biomeReport(src)).diagnostics) {
    const rule = category.split('/').at(-1);
    if (rule !== LINES && rule !== COMPLEXITY) throw new Error(`biome: ${location?.path}: ${message}`);
    const { path, start } = location;
    if (!texts.has(path)) texts.set(path, await readFile(path, 'utf8'));
    const name = functionNameAt(path, texts.get(path), start.line, start.column);
    found.push({ rule, key: `${path}: ${name}`, size: Number(message.match(/\d+/)[0]) });
  }
  return found.sort((a, b) => a.key.localeCompare(b.key));
}

const sectionOf = (key) => (key.startsWith('src/sandbox/') ? SANDBOX : OUTSIDE);

function baselineOf(found) {
  const baseline = { about: ABOUT };
  for (const section of [OUTSIDE, SANDBOX]) baseline[section] = { [LINES]: {}, [COMPLEXITY]: {} };
  for (const { rule, key, size } of found) baseline[sectionOf(key)][rule][key] = size;
  return baseline;
}

/** The recorded sizes by rule and key, whichever section holds them. */
function recordedIn(baseline) {
  const recorded = new Map();
  for (const section of [OUTSIDE, SANDBOX]) {
    for (const rule of [LINES, COMPLEXITY]) {
      for (const [key, size] of Object.entries(baseline[section]?.[rule] ?? {}))
        recorded.set(`${rule} ${key}`, size);
    }
  }
  return recorded;
}

const measureOf = (rule, size) => (rule === LINES ? `${size} lines` : `a cognitive complexity of ${size}`);

/** What breaks the rule (problems) and what may be lowered in the baseline (notes). */
function compare(found, recorded, limit, baselinePath) {
  const problems = [];
  const notes = [];
  for (const { rule, key, size } of found) {
    const was = recorded.get(`${rule} ${key}`);
    recorded.delete(`${rule} ${key}`);
    const now = `${key} has ${measureOf(rule, size)} (limit ${limit[rule]}, ${rule})`;
    if (was === undefined)
      problems.push(`${now}: split it into well-named functions (the baseline only shrinks).`);
    else if (size > was)
      problems.push(`${now}, more than its ${was} in the baseline: bring it back to ${was} or less.`);
    else if (size < was) notes.push(`${now}, less than its ${was} in the baseline: write ${size} there.`);
  }
  for (const [ruleAndKey, was] of recorded) {
    const [rule, ...key] = ruleAndKey.split(' ');
    problems.push(
      `${key.join(' ')} is within the limit of ${rule} now (recorded: ${was}): delete its line from ${baselinePath}.`,
    );
  }
  return { problems, notes };
}

function summary(found) {
  const count = (section, rule) =>
    found.filter((f) => f.rule === rule && sectionOf(f.key) === section).length;
  return (
    `Functions over the limits: ${count(OUTSIDE, LINES)} by lines and ${count(OUTSIDE, COMPLEXITY)} by ` +
    `complexity outside the sandbox, ${count(SANDBOX, LINES)} and ${count(SANDBOX, COMPLEXITY)} in it.`
  );
}

async function main() {
  const { values } = parseArgs({
    options: {
      print: { type: 'boolean' },
      write: { type: 'boolean' },
      baseline: { type: 'string', default: '.ci/function-size/baseline.json' },
      src: { type: 'string', default: 'src' },
    },
  });
  const found = await measure(values.src);
  const text = `${JSON.stringify(baselineOf(found), null, 2)}\n`;
  if (values.print) return void process.stdout.write(text);
  if (values.write) return void (await writeFile(values.baseline, text));
  const recorded = recordedIn(JSON.parse(await readFile(values.baseline, 'utf8')));
  const { problems, notes } = compare(found, recorded, await limits(), values.baseline);
  for (const note of notes) console.log(note);
  if (problems.length === 0) return void console.log(summary(found));
  for (const problem of problems) console.error(problem);
  process.exitCode = 1;
}

await main();
