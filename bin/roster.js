#!/usr/bin/env node
// Entry point: the bundled CLI lives in dist/ (built by `npm install` via the prepare script).
// Scripts probe for the tool with `roster --version`: it is answered here, before any of dist/ loads, and
// written straight to the file descriptor (creating process.stdout costs more than the rest of the answer).
import { createRequire } from 'node:module';

// Not `import … from 'node:fs'`: an ES import of a built-in builds a facade that reads every export, and
// node:fs's ReadStream getter loads all of node:stream (~2 ms that `--version` never needs).
const { readFileSync, writeSync } = createRequire(import.meta.url)('node:fs');

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  try {
    writeSync(1, `${version}\n`);
  } catch {
    // stdout closed early (`roster --version | true`): nothing to report
  }
} else {
  const { run } = await import('../dist/cli.js');
  process.exitCode = await run(argv);
}
