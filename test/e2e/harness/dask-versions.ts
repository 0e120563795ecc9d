// The two Dask versions e2e hosts run: the machine's own (Debian bookworm's
// python3-distributed 2022.12 in /usr/bin/python3) and a current one (Debian trixie's
// 2024.12, in a root that .ci/trixie-root builds once per machine), entered through a
// wrapper interpreter that every host can use as its remote_python.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const DASK_LINES = ['2022.12', '2024.12'] as const;
export type DaskLine = (typeof DASK_LINES)[number];

export const SYSTEM_PYTHON = '/usr/bin/python3';
const BUILD_SCRIPT = resolve(import.meta.dirname, '../../../.ci/trixie-root');
/** Present only inside the trixie root (written by .ci/trixie-root). */
const ROOT_MARKER = '/.sshcluster-ci-root';

export function isDaskLine(v: unknown): v is DaskLine {
  return typeof v === 'string' && (DASK_LINES as readonly string[]).includes(v);
}

/** The trixie root's path; builds it on first use (about a minute), reuses it after. */
export function ensureTrixieRoot(): string {
  const r = spawnSync('bash', [BUILD_SCRIPT], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    timeout: 15 * 60_000,
  });
  const root = (r.stdout ?? '').trim().split('\n').pop() ?? '';
  if (r.status !== 0 || !root.startsWith('/')) {
    throw new Error(
      `e2e: no Debian trixie root for the Dask 2024.12 hosts (${BUILD_SCRIPT} exited ${r.status ?? r.signal}); ` +
        'it needs root, debootstrap (apt-get install debootstrap) and the Debian archive; see its output above',
    );
  }
  return root;
}

/**
 * Writes the interpreter wrapper for the trixie root into dir (under /tmp: the wrapper
 * binds /tmp into the root, so the same path works inside, where the launcher re-runs
 * its argv[0]). Each call gets a private mount namespace with proc, /dev and /tmp
 * mounted into the root, so its mounts end with its last process and none is left
 * behind, whatever the test does; PIDs, network and environment stay the host's, so
 * tagging (/proc/<pid>/environ), `kill` by PID and `ip netns pids` see it as usual.
 */
export function writeChrootPython(dir: string, root: string): string {
  if (!/^[\w/.+-]+$/.test(root))
    throw new Error(`e2e: trixie root path ${root}: use plain characters (it goes into a shell script)`);
  if (!dir.startsWith('/tmp/'))
    throw new Error(`e2e: the test directory ${dir} must be under /tmp (the trixie wrapper binds /tmp); unset TMPDIR`);
  const path = join(dir, 'python-dask2024');
  writeFileSync(
    path,
    [
      '#!/bin/sh',
      `# python3 with distributed 2024.12 from the Debian trixie root ${root} (see harness/dask-versions.ts).`,
      `if [ -e ${ROOT_MARKER} ]; then exec /usr/bin/python3 "$@"; fi`,
      "exec unshare --mount --propagation private -- /bin/sh -c 'r=$1; shift",
      'mount -t proc proc "$r/proc" && mount --rbind /dev "$r/dev" && mount --bind /tmp "$r/tmp" || exit 127',
      `exec chroot "$r" /usr/bin/python3 "$@"' sh ${root} "$@"`,
      '',
    ].join('\n'),
    { mode: 0o755 },
  );
  return path;
}

/** Mount points at or below dir in the mount namespace of `pid` (default: ours), via findmnt. */
export function mountsUnder(dir: string, pid?: number): string[] {
  const argv = ['findmnt', '-rn', '-o', 'TARGET'];
  const r =
    pid === undefined
      ? spawnSync(argv[0]!, argv.slice(1), { encoding: 'utf8' })
      : spawnSync('nsenter', ['-t', String(pid), '-m', ...argv], { encoding: 'utf8' });
  if (r.status !== 0)
    throw new Error(`findmnt${pid === undefined ? '' : ` in the mount namespace of ${pid}`}: ${r.stderr || r.error}`);
  return r.stdout.split('\n').filter((m) => m === dir || m.startsWith(`${dir}/`));
}

/** distributed.__version__ as `python` reports it (run in the root namespace). */
export function daskVersionOf(python: string): string {
  const r = spawnSync(python, ['-c', 'import distributed; print(distributed.__version__)'], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (r.status !== 0) throw new Error(`e2e: ${python} cannot import distributed: ${(r.stderr ?? '').slice(-1000)}`);
  return r.stdout.trim();
}
