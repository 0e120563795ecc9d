// The Python package's pytest suite (python/tests, Debian's python3-pytest), run here so
// that `npm test` runs it on both Dask lines: local clusters that `up --detach` starts
// from this build, with this project's python (2022.12: the machine's; 2024.12: the
// trixie root, which has pytest, nbclient, a kernel and Node for the CLI). The root sees
// only /tmp of this machine, so the suite, the package, the notebook and the built CLI
// are copied there and run from the copy on both lines alike. Only exit 0 with tests
// passed and none skipped passes: pytest's 5 ("no tests collected") or a skipped
// notebook test (no nbclient) would mean part of the suite silently stopped running.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { getTestHosts } from './harness/context.js';

const REPO = path.resolve(import.meta.dirname, '../..');
const info = getTestHosts();

/** What the suite and the CLI it starts need, copied under dir (the layout of the repo). */
function copyForPytest(dir: string): string {
  const copy = path.join(dir, 'pytest-repo');
  fs.rmSync(copy, { recursive: true, force: true });
  for (const p of ['python', 'bin', 'dist', 'package.json', 'src/version.ts', 'docs/notebook-example.ipynb'])
    fs.cpSync(path.join(REPO, p), path.join(copy, p), {
      recursive: true,
      filter: (src) => !src.includes('__pycache__') && !src.endsWith('.egg-info'),
    });
  // The bundle requires ssh2's native bindings from node_modules (an SSH cluster's only).
  for (const m of ['ssh2', 'cpu-features'])
    fs.cpSync(fs.realpathSync(path.join(REPO, 'node_modules', m)), path.join(copy, 'node_modules', m), {
      recursive: true,
    });
  return copy;
}

describe('python package', () => {
  it(`python/tests pass (pytest) on Dask ${info.dask} (${info.daskVersion}), none skipped`, () => {
    const copy = copyForPytest(info.dir);
    const cache = path.join(info.dir, 'pytest-cache');
    fs.mkdirSync(cache, { recursive: true, mode: 0o700 });
    const r = spawnSync(
      info.python,
      // An absolute path: the trixie wrapper's chroot starts in its /.
      [
        '-W',
        'ignore::DeprecationWarning',
        '-m',
        'pytest',
        path.join(copy, 'python', 'tests'),
        '-q',
        '-rs',
        '-p',
        'no:cacheprovider',
      ],
      {
        cwd: copy,
        encoding: 'utf8',
        timeout: 600_000,
        env: {
          ...process.env,
          SSHCLUSTER_CLI: path.join(copy, 'bin', 'sshcluster'),
          // The CLI's V8 cache: not in the shared trixie root's /root.
          XDG_CACHE_HOME: cache,
        },
      },
    );
    const out = `${r.stdout}\n${r.stderr}`;
    expect(r.status, out).toBe(0);
    expect(out).toMatch(/\d+ passed/);
    expect(out, out).not.toMatch(/\d+ skipped/);
    console.log(out.trim().split('\n').pop());
  }, 600_000);
});
