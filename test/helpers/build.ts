// vitest global setup: build dist/ once, so end-to-end tests run the code under test, not a stale build.
import { execFileSync } from 'node:child_process';

export default function setup(): void {
  execFileSync('npm', ['run', '--silent', 'build'], {
    stdio: 'inherit',
    cwd: new URL('../..', import.meta.url).pathname,
  });
}
