// The Python package's pytest suite (python/tests, Debian's python3-pytest), run here so
// that `npm test` runs it: local clusters that `up --detach` starts from this build, on
// the machine's python (Dask 2022.12), so once, not per Dask line (python-package.test.ts
// runs the attach smoke test on each). Only exit 0 with tests passed and none skipped
// passes: pytest's 5 ("no tests collected") or a skipped notebook test (no nbclient)
// would mean part of the suite silently stopped running.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SYSTEM_PYTHON } from './harness/dask-versions.js';

const REPO = path.resolve(import.meta.dirname, '../..');

describe('python package', () => {
  it(`python/tests pass (pytest) on ${SYSTEM_PYTHON}, none skipped`, () => {
    const r = spawnSync(
      SYSTEM_PYTHON,
      ['-W', 'ignore::DeprecationWarning', '-m', 'pytest', 'python/tests', '-q', '-rs', '-p', 'no:cacheprovider'],
      {
        cwd: REPO,
        encoding: 'utf8',
        timeout: 600_000,
        env: { ...process.env, SSHCLUSTER_CLI: path.join(REPO, 'bin', 'sshcluster') },
      },
    );
    const out = `${r.stdout}\n${r.stderr}`;
    expect(r.status, out).toBe(0);
    expect(out).toMatch(/\d+ passed/);
    expect(out, out).not.toMatch(/\d+ skipped/);
    console.log(out.trim().split('\n').pop());
  }, 600_000);
});
