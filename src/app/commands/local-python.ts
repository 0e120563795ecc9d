// `up` without a host file needs a local Python that has distributed; `python3` on PATH
// is often a virtualenv or pyenv without it, so look a little further.
import { spawnSync } from 'node:child_process';
import { ExpectedError } from '../../errors.js';

const CANDIDATES = ['python3', '/usr/bin/python3', 'python'];

export function findLocalPython(env: Record<string, string | undefined>, preferred?: string): string {
  const tried: string[] = [];
  for (const py of preferred ? [preferred] : CANDIDATES) {
    const r = spawnSync(py, ['-c', 'import distributed, sys; print(distributed.__version__)'], { env, encoding: 'utf8', timeout: 30_000 });
    if (r.status === 0) return py;
    tried.push(`${py}: ${r.error ? 'not found' : (r.stderr.trim().split('\n').pop() ?? `exit ${r.status}`)}`);
  }
  throw new ExpectedError(`Dask is not installed for any local Python (tried ${tried.join('; ')})`, {
    hint: "install it: apt-get install python3-distributed, or pip install 'distributed'; or name an interpreter with --python",
  });
}
