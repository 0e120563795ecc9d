// The Python package's own tests (python/tests, pytest from Debian's python3-pytest)
// against real local clusters that `up --detach` starts from this build: run here so
// that `npm test` runs them. Only exit 0 passes: pytest's 5 ("no tests collected")
// would mean the suite silently stopped running.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SYSTEM_PYTHON } from './harness/dask-versions.js';

const REPO = path.resolve(import.meta.dirname, '../..');

describe('python package (pytest)', () => {
  it(`python/tests pass on ${SYSTEM_PYTHON}`, () => {
    const r = spawnSync(SYSTEM_PYTHON, ['-W', 'ignore::DeprecationWarning', '-m', 'pytest', 'python/tests', '-q', '-p', 'no:cacheprovider'], {
      cwd: REPO,
      encoding: 'utf8',
      timeout: 600_000,
      env: { ...process.env, SSHCLUSTER_CLI: path.join(REPO, 'bin', 'sshcluster') },
    });
    const out = `${r.stdout}\n${r.stderr}`;
    expect(r.status, out).toBe(0);
    expect(out).toMatch(/\d+ passed/);
  }, 600_000);
});
