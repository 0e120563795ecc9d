// Build: the CLI as a few bundled ES modules in dist/ (esbuild), and beside them the
// programs that run on the hosts (src/dask/remote/*.py -> dist/remote/), which the
// bundle reads relative to its own files. Type checking is tsc's (`npm run build` runs it
// first); this only emits.
//
// Why a bundle: Node loads ~200 small modules one by one otherwise, and that is ~45 ms of
// every command's start, before `up` can open its first connection. ssh2 stays outside: it
// loads its optional native crypto binding from its own directory.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist');
rmSync(out, { recursive: true, force: true });

const result = await build({
  absWorkingDir: root,
  // Separate processes: the CLI (and the detached controller it forks) and the worker
  // that makes a cluster's certificates (cert-maker.ts finds it next to itself).
  entryPoints: { main: 'src/main.ts', 'tls-cert-worker': 'src/app/tls-cert-worker.ts' },
  bundle: true,
  // Shared code in chunks; what a command imports on demand (ink, the dashboard, x509)
  // stays a chunk of its own, loaded only when used.
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outdir: out,
  external: ['ssh2', 'react-devtools-core'],
  // The CommonJS packages in the bundle (commander, react, yaml) call require().
  banner: { js: "import { createRequire as __sshcRequire } from 'node:module'; const require = __sshcRequire(import.meta.url);" },
  legalComments: 'none',
  logLevel: 'warning',
  metafile: true,
});

// Which sources each output file holds: what module-loading.test.ts maps the loaded files
// back to (a command must not load SSH, YAML or dashboard code it does not use).
const inputs = Object.fromEntries(
  Object.entries(result.metafile.outputs).map(([file, o]) => [file.slice('dist/'.length), Object.keys(o.inputs).sort()]),
);
writeFileSync(join(out, 'inputs.json'), `${JSON.stringify(inputs, null, 1)}\n`);

const from = join(root, 'src', 'dask', 'remote');
const to = join(out, 'remote');
mkdirSync(to, { recursive: true });
for (const name of readdirSync(from).filter((n) => n.endsWith('.py'))) copyFileSync(join(from, name), join(to, name));
