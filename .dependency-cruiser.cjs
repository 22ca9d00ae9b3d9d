// roster's layers, checked by dependency-cruiser in `npm test` (`npm run layers`). Each floor imports only
// the floors below it, so a wrong import fails with the rule's name: "layer-api" means a module of the API
// floor imported something above it. docs/development.md explains the floors.
//
// From the top: the program, the commands, the features (ordered among themselves so that they form no
// cycle), the session (the command context and the session that builds clients), auth (credentials and
// tokens at rest), api (the wire), settings, and the shared foundations.
const FLOORS = [
  ['program', ['src/(cli|main|demo)\\.ts$', 'src/standalone/']],
  ['commands', ['src/commands/']],
  ['doctor', ['src/doctor/']],
  ['audit', ['src/audit/']],
  ['campaign', ['src/campaign/']],
  ['completion', ['src/completion/']],
  ['invite', ['src/invite/']],
  ['schools', ['src/schools/']],
  ['oneroster', ['src/oneroster/']],
  ['session', ['src/(session|context)\\.ts$']],
  ['auth', ['src/auth/']],
  ['api', ['src/api/']],
  ['settings', ['src/(settings|config-file|base-url)\\.ts$']],
  [
    'foundations',
    ['src/output/', 'src/(clock|errors|files|heap|io|lock|paths|platform|prompter|redact|values|version)\\.ts$'],
  ],
];
const SANDBOX = '^src/sandbox/';
const anchored = (paths) => paths.map((path) => `^${path}`);
const everyFloor = FLOORS.flatMap(([, paths]) => anchored(paths));

const layerRules = FLOORS.map(([name, paths], index) => ({
  name: `layer-${name}`,
  severity: 'error',
  comment:
    index === 0
      ? 'The program is the top floor.'
      : `The ${name} floor imports only the floors below it: ${FLOORS.slice(index + 1)
          .map(([below]) => below)
          .join(', ')}.`,
  from: { path: anchored(paths) },
  to: { path: FLOORS.slice(0, index).flatMap(([, above]) => anchored(above)) },
}));

module.exports = {
  forbidden: [
    ...layerRules.slice(1),
    {
      name: 'sandbox-own-floor',
      severity: 'error',
      comment: 'The sandbox stands in for the service: it imports only the foundations.',
      from: { path: SANDBOX },
      to: { path: '^src/', pathNot: [SANDBOX, ...anchored(FLOORS.at(-1)[1])] },
    },
    {
      name: 'sandbox-imported-by-its-command',
      severity: 'error',
      comment: 'Only `roster sandbox` and the demo start the sandbox.',
      from: { path: '^src/', pathNot: [SANDBOX, '^src/commands/sandbox\\.ts$', '^src/demo\\.ts$'] },
      to: { path: SANDBOX },
    },
    {
      name: 'invite-store-one-door',
      severity: 'error',
      comment: 'The on-disk state of sending (src/invite/store/) is entered through its index.ts alone.',
      from: { path: '^src/', pathNot: '^src/invite/store/' },
      to: { path: '^src/invite/store/', pathNot: '^src/invite/store/index\\.ts$' },
    },
    {
      name: 'features-own-no-terminal',
      severity: 'error',
      comment:
        'Features return data or take callbacks: only the commands (and the program) ask questions (src/prompter.ts), show progress (src/output/progress.ts) and print (src/output/render.ts); the context hands the prompter out.',
      from: { path: '^src/', pathNot: ['^src/commands/', '^src/(cli|main)\\.ts$', '^src/context\\.ts$'] },
      to: { path: ['^src/prompter\\.ts$', '^src/output/(progress|render)\\.ts$'] },
    },
    {
      name: 'on-a-floor',
      severity: 'error',
      comment: 'Every module of src/ belongs to a floor (add a new folder to FLOORS in .dependency-cruiser.cjs).',
      from: { path: '^src/', pathNot: [...everyFloor, SANDBOX] },
      to: {},
    },
    {
      name: 'imports-on-a-floor',
      severity: 'error',
      comment:
        'Every module of src/ that is imported belongs to a floor: one that imports nothing has no import for on-a-floor to catch (add it to FLOORS in .dependency-cruiser.cjs).',
      from: { path: '^src/' },
      to: { path: '^src/', pathNot: [...everyFloor, SANDBOX] },
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Modules import each other in one direction only.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-orphans',
      severity: 'error',
      comment: 'A module nothing imports is dead code (the bundle-time stand-ins are injected by esbuild).',
      from: { orphan: true, path: '^src/', pathNot: ['^src/cli\\.ts$', '^src/demo\\.ts$', '^src/standalone/(main|keyring)\\.ts$'] },
      to: {},
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports count: a type is a dependency of the design, even if the bundle drops it.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
