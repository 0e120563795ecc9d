// `up` without a host file needs a local Python that has distributed: the same rule as
// remote_python's default on a host (the first of PYTHON_CANDIDATES that has it), so a
// host file naming this machine gets the same interpreter. `--python` names one instead.
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { HAS_DISTRIBUTED_PY, PYTHON_CANDIDATES } from '../../dask/remote-command.js';
import { ExpectedError, UsageError } from '../../errors.js';

export function findLocalPython(env: Record<string, string | undefined>, preferred?: string): string {
  const tried: string[] = [];
  for (const py of preferred ? [preferred] : PYTHON_CANDIDATES) {
    const r = spawnSync(py, ['-c', HAS_DISTRIBUTED_PY], { env, encoding: 'utf8', timeout: 30_000 });
    if (r.status === 0 && r.stdout.trim() === 'distributed') return py;
    tried.push(`${py}: ${whyNot(r)}`);
  }
  const install = "install it: apt-get install python3-distributed, or pip install 'distributed'";
  // An interpreter the user named that cannot run Dask is bad input (exit 2).
  if (preferred)
    throw new UsageError(`Dask is not installed for --python ${tried[0]}`, {
      hint: `${install}; or name another interpreter, or leave --python out to find one`,
    });
  throw new ExpectedError(`Dask is not installed for any local Python (tried ${tried.join('; ')})`, {
    hint: `${install}; or name an interpreter with --python`,
  });
}

function whyNot(r: SpawnSyncReturns<string>): string {
  if (r.error) return 'not found';
  if (r.status === 0) return 'it exited 0 without running the check (no output): is it a Python interpreter?';
  return r.stderr.trim().split('\n').pop() || 'no module named distributed';
}
