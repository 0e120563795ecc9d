// The layer rules (docs/architecture.md, "Layers"), checked by `npm run lint:deps`.
// An import may only point down this list, or sideways within one line:
const LAYERS = [
  ['main.ts', 'terminal.ts'], // the process: terminal.ts builds main's AppContext
  ['cli'],
  ['app'],
  ['ui'], //                      the layers below app/, in the order today's imports go
  ['dask'],
  ['adaptive'], //                a client of the core
  ['cluster'], //                 the core, over ports
  ['tls', 'ssh', 'control'],
  ['config'],
  ['events'],
  ['errors.ts', 'shell-word.ts'],
];
// Violations that exist today are listed in .dependency-cruiser-known-violations.json
// (`npm run lint:deps:baseline` rewrites it: run it only to drop fixed entries). Any new
// one fails `npm run lint`.

const name = (n) => (n.endsWith('.ts') ? `${n.replace('.', '\\.')}$` : `${n}/`);
const under = (names) => `^src/(${names.map(name).join('|')})`;

const layerRules = LAYERS.slice(1).map((layer, i) => ({
  name: `layer-${layer.join('-').replace(/\.ts/g, '')}-not-up`,
  severity: 'error',
  comment: `${layer.join(', ')} never import a layer above them (${LAYERS.slice(0, i + 1).flat().join(', ')}).`,
  from: { path: under(layer) },
  to: { path: under(LAYERS.slice(0, i + 1).flat()) },
}));

const IMPURE = '^(node:)?(fs|fs/promises|child_process|net|http|https|tls|dgram|worker_threads)$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No file imports one that imports it back (type imports included).',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      // A warning, because dependency-cruiser cannot list folder loops as known
      // violations; the layer rules above fail the loops between top-level folders.
      name: 'no-folder-circular',
      severity: 'warn',
      comment: 'No two folders import each other, directly or around a loop.',
      scope: 'folder',
      from: { path: '^src/' },
      to: { circular: true },
    },
    ...layerRules,
    {
      name: 'app-commands-on-top',
      severity: 'error',
      comment: 'Inside app/, commands/ is the top: the rest of app/ never imports a command.',
      from: { path: '^src/app/', pathNot: '^src/app/commands/' },
      to: { path: '^src/app/commands/' },
    },
    {
      name: 'pure-core',
      severity: 'error',
      comment: 'cluster/ and adaptive/ are pure: no ssh2, react, ink, fs, processes, sockets.',
      from: { path: '^src/(cluster|adaptive)/' },
      to: { path: [IMPURE, '^ssh2$', '^react$', '^ink$', 'node_modules/(ssh2|react|ink)/'] },
    },
    {
      name: 'pure-core-folders',
      severity: 'error',
      comment: 'cluster/ and adaptive/ reach ssh, dask, control and the app only through ports.',
      from: { path: '^src/(cluster|adaptive)/' },
      to: { path: '^src/(ssh|dask|app|ui|control)/' },
    },
    {
      name: 'ssh2-only-in-ssh',
      severity: 'error',
      comment: 'ssh/ is the only importer of ssh2.',
      from: { path: '^src/', pathNot: '^src/ssh/' },
      to: { path: ['^ssh2$', 'node_modules/ssh2/'] },
    },
    {
      name: 'ui-not-ssh-or-dask',
      severity: 'error',
      comment: 'ui/ reads events and status only.',
      from: { path: '^src/ui/' },
      to: { path: '^src/(ssh|dask)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json'],
    },
  },
};
