// The standalone executable's entry: Node's single-executable application (built by `npm run release`,
// .ci/release.mjs) runs this bundle with everything roster needs inside it, so no Node is installed. It
// does what bin/roster.js does for the npm package; the keychain's addon comes from the executable
// (./keyring.ts), and V8's code cache is built into the executable instead of Node's compile cache.
import { run } from '../cli.js';

process.exitCode = await run(process.argv.slice(2));
