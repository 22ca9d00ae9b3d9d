#!/usr/bin/env node
// Entry point: the bundled CLI lives in dist/ (built by `npm install` via the prepare script).
import { run } from '../dist/cli.js';

process.exitCode = await run(process.argv.slice(2));
