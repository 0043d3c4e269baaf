/**
 * The import rules of src/ (STYLE.md, "Layers, top to bottom"), checked by `npm run deps` in CI.
 *
 * Layers, top to bottom; an import goes down this list, never up and never sideways within a layer:
 *
 *   main.ts -> local/, redis-bot.ts -> container.ts -> slack/ -> render/ -> domain/ -> upstream/, sandbox/
 *   -> store/, config.ts -> lib/
 *
 * fake-slack/ (the fake Slack Web API of local mode and the tests) stands beside that order: it imports nothing of
 * the bot but lib/, and of src/ only local/ imports it. bench/ and test/ may import anything in src/; src/ never
 * imports them. No cycle anywhere, type-only imports included.
 */

/** Each layer: a name for messages and the paths it holds (relative to the repository). */
const LAYERS = [
  ['main', ['^src/main\\.ts$']],
  ['local/ and replica start-up', ['^src/local/', '^src/redis-bot\\.ts$']],
  ['container', ['^src/container\\.ts$']],
  ['slack/', ['^src/slack/']],
  ['render/', ['^src/render/']],
  ['domain/', ['^src/domain/']],
  ['upstream/ and sandbox/', ['^src/upstream/', '^src/sandbox/']],
  ['store/ and config', ['^src/store/', '^src/config\\.ts$']],
  ['lib/', ['^src/lib/']],
];

const slug = (name) => name.replace(/[^a-z]+/g, '-').replace(/^-|-$/g, '');

const upward = LAYERS.flatMap(([name, paths], index) =>
  index === 0
    ? []
    : [
        {
          name: `no-upward-from-${slug(name)}`,
          comment: `${name} imports only the layers below it (STYLE.md, Layers).`,
          severity: 'error',
          from: { path: paths },
          to: { path: LAYERS.slice(0, index).flatMap(([, above]) => above) },
        },
      ],
);

/** Two parts of one layer do not import each other (upstream/ and sandbox/, store/ and config.ts...). */
const sideways = LAYERS.filter(([, paths]) => paths.length > 1).flatMap(([name, paths]) =>
  paths.map((path) => ({
    name: `no-sideways-in-${slug(name)}`,
    comment: `The parts of ${name} are side by side: neither imports the other.`,
    severity: 'error',
    from: { path },
    to: { path: paths.filter((other) => other !== path) },
  })),
);

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No import cycle, type-only imports included.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    ...upward,
    ...sideways,
    {
      name: 'fake-slack-stands-alone',
      comment: 'fake-slack/ is tooling for local mode and the tests: it imports nothing of the bot but lib/.',
      severity: 'error',
      from: { path: '^src/fake-slack/' },
      to: { path: '^src/', pathNot: ['^src/fake-slack/', '^src/lib/'] },
    },
    {
      name: 'only-local-mode-uses-fake-slack',
      comment: 'In src/, only local/ starts the fake Slack; the bot itself never talks to it.',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/local/', '^src/fake-slack/'] },
      to: { path: '^src/fake-slack/' },
    },
    {
      name: 'services-know-nothing-of-slack',
      comment: 'Only slack/ (and what starts the app) talks to Slack; render/ may use the Block Kit types alone.',
      severity: 'error',
      from: { path: ['^src/domain/', '^src/upstream/', '^src/sandbox/', '^src/lib/', '^src/config\\.ts$'] },
      to: { path: 'node_modules/@slack/' },
    },
    {
      name: 'stores-use-slack-types-only',
      comment: 'store/installation-store.ts implements Bolt\'s InstallationStore: its types, nothing that runs.',
      severity: 'error',
      from: { path: '^src/store/' },
      to: { path: 'node_modules/@slack/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'renderers-do-no-io',
      comment: 'A renderer turns a view model into { text, blocks }: no Bolt, no Web API, no HTTP, no Redis, no files.',
      severity: 'error',
      from: { path: '^src/render/' },
      to: {
        path: ['node_modules/@slack/(bolt|web-api|oauth|socket-mode)/', 'node_modules/(ioredis|undici)/'],
      },
    },
    {
      name: 'renderers-do-no-io-node',
      comment: 'The same for the I/O modules of Node.',
      severity: 'error',
      from: { path: '^src/render/' },
      to: { dependencyTypes: ['core'], path: '^(node:)?(fs|fs/promises|http|https|net|child_process|timers/promises)$' },
    },
    {
      name: 'metrics-through-the-metrics-interface',
      comment: 'Code records through lib/metrics.ts; only lib/prom-metrics.ts (one registry per bot) knows prom-client.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/lib/prom-metrics\\.ts$' },
      to: { path: 'node_modules/prom-client/' },
    },
    {
      name: 'src-does-not-import-tests-or-bench',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: ['^test/', '^bench/'] },
    },
    {
      name: 'src-does-not-import-dev-dependencies',
      comment: 'What src/ imports must be in package.json dependencies: the image installs no others.',
      severity: 'error',
      from: { path: '^src/' },
      to: { dependencyTypes: ['npm-dev'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Read the TypeScript before compilation, so type-only imports count as imports.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
