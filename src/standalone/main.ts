// The standalone executable's entry: Node's single-executable application (built by `npm run release`,
// .ci/release.mjs) runs this bundle with everything roster needs inside it, so no Node is installed. It
// does what bin/roster.js does for the npm package: `--version` is answered before the program loads
// (scripts probe for the tool with it); the keychain's addon comes from the executable (./keyring.ts), and
// V8's code cache is built into the executable instead of Node's compile cache.
import { writeSync } from 'node:fs';
import { versionLine } from '../version.js';

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  try {
    writeSync(1, `${versionLine()}\n`);
  } catch {
    // stdout closed early (`roster --version | true`): nothing to report
  }
} else {
  import('../cli.js')
    .then(({ run }) => run(argv))
    .then((code) => {
      process.exitCode = code;
    });
}
