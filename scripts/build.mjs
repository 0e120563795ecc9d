// Build: the CLI as one CommonJS bundle (dist/main.cjs, esbuild), the dashboard and the
// certificate worker as ES modules beside it, and the programs that run on the hosts
// (src/dask/remote/**/*.py -> dist/remote/), which the bundle reads relative to its own file.
// Type checking is tsc's (`npm run build` runs it first); this only emits.
//
// Why a bundle: Node loads ~200 small modules one by one otherwise, and that is ~45 ms of
// every command's start, before `up` can open its first connection. Why CommonJS: a
// classic script is what V8 can keep compiled between runs (bin/sshcluster); Node 20 has
// no code cache for ES modules. A module reached only by a dynamic import() is still
// evaluated only when used: esbuild wraps it in an init function.
//
// Outside the bundle:
// - ssh2's native bindings and WebAssembly module (its JavaScript is in the bundle);
// - the dashboard (src/ui/render.ts -> dist/ui.js): Ink's layout engine is an ES module
//   with a top-level await, which CommonJS cannot hold;
// - the certificate worker, a process of its own (cert-maker.ts finds it next to main),
//   and its X.509 code.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist');
rmSync(out, { recursive: true, force: true });

const modules = join(root, 'node_modules') + '/';
// preserveSymlinks: a node_modules that is a symlink (a git worktree sharing another
// checkout's) keeps its node_modules/ paths, which the outside plugin and inputs.json name.
const common = { absWorkingDir: root, preserveSymlinks: true, bundle: true, platform: 'node', target: 'node20', outdir: out, legalComments: 'none', logLevel: 'warning', metafile: true };

// What the CommonJS bundle leaves outside (the list above).
// - Two sources stand in it for ES modules beside it, which they import through the
//   loader's import() (passed to the bundle as __sshcImport; run by plain `node
//   dist/main.cjs`, their own): load-ui.ts for the dashboard (dist/ui.js), and the X.509
//   code (the worker's; in the bundle only behind the in-process fallbacks).
// - ssh2's native bindings (its crypto, cpu-features) and its WebAssembly poly1305
//   (src/ssh/ssh2.ts leaves that out when the binding is there) stay files in
//   node_modules, required from there when the bundle runs.
const IMPORT = "const load = typeof __sshcImport === 'function' ? __sshcImport : (url) => import(url);";
const outside = {
  name: 'outside',
  setup(b) {
    b.onLoad({ filter: /src[\\/]app[\\/]dashboard[\\/]load-ui\.ts$/ }, () => ({
      loader: 'js',
      contents: `${IMPORT}\nexport function loadUi() { return load(new URL('./ui.js', import.meta.url).href); }`,
    }));
    b.onLoad({ filter: /src[\\/]tls[\\/]cert-authority\.ts$/ }, () => ({
      loader: 'js',
      contents: `${IMPORT}\nexport async function makeClusterCerts(o) { return (await load(new URL('./cert-authority.js', import.meta.url).href)).makeClusterCerts(o); }`,
    }));
    b.onResolve({ filter: /\.node$|[\\/]poly1305\.js$/ }, (a) => {
      const file = join(a.resolveDir, a.path);
      if (!file.startsWith(modules)) return { errors: [{ text: `${a.path} from ${a.importer}: not in node_modules` }] };
      return { path: file.slice(modules.length), external: true };
    });
  },
};

const [main, esm] = await Promise.all([
  build({
    ...common,
    entryPoints: { main: 'src/main.ts' },
    format: 'cjs',
    outExtension: { '.js': '.cjs' },
    plugins: [outside],
    // The sources find their neighbours (dist/remote/, the worker, ssh2's require) from
    // import.meta.url: in CommonJS, this file's URL.
    define: { 'import.meta.url': '__sshcMetaUrl' },
    banner: { js: "const __sshcMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
  }),
  build({
    ...common,
    entryPoints: { ui: 'src/ui/render.ts', 'tls-cert-worker': 'src/app/tls-cert-worker.ts', 'cert-authority': 'src/tls/cert-authority.ts' },
    format: 'esm',
    splitting: true,
    external: ['react-devtools-core'],
    // The CommonJS packages in these (react, ink's) call require().
    banner: { js: "import { createRequire as __sshcRequire } from 'node:module'; const require = __sshcRequire(import.meta.url);" },
  }),
]);

// Which sources each output file holds (module-loading.test.ts reads it).
const inputs = Object.fromEntries(
  [main, esm].flatMap((r) => Object.entries(r.metafile.outputs)).map(([file, o]) => [file.slice('dist/'.length), Object.keys(o.inputs).sort()]),
);
writeFileSync(join(out, 'inputs.json'), `${JSON.stringify(inputs, null, 1)}\n`);

// The programs, and in preload/ the modules Dask processes import (a nanny by module name,
// with that directory on its PYTHONPATH: nothing else may be there).
for (const sub of ['', 'preload']) {
  const from = join(root, 'src', 'dask', 'remote', sub);
  const to = join(out, 'remote', sub);
  mkdirSync(to, { recursive: true });
  for (const name of readdirSync(from).filter((n) => n.endsWith('.py'))) copyFileSync(join(from, name), join(to, name));
}
