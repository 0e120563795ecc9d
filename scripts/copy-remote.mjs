// Build step after tsc: the programs that run on the hosts (src/dask/remote/*.py) are
// shipped as real files next to the compiled modules that read them (dist/dask/remote/).
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const from = join(root, 'src', 'dask', 'remote');
const to = join(root, 'dist', 'dask', 'remote');
mkdirSync(to, { recursive: true });
for (const name of readdirSync(from).filter((n) => n.endsWith('.py'))) copyFileSync(join(from, name), join(to, name));
