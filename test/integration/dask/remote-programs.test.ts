// The programs shipped to hosts (src/dask/remote/*.py, copied into dist/remote/ by the build):
// each compiles with the oldest Python we support on hosts (3.8, what Dask 2022.12
// needs; checked as 3.7 syntax) under the python3 of this machine, and runs for real
// (dask-launcher*, dask-keeper, dask-remote-command, check e2e). The directory check
// is one function in shared.py, put in front of each program that needs it.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bootSource, installedExec, remoteProgram, remoteSource } from '../../../src/dask/remote-programs.js';
import { programPath } from './remote/launcher-harness.js';

const PYTHON = '/usr/bin/python3';
const remoteDir = path.dirname(programPath('boot.py'));
const files = [
  ...readdirSync(remoteDir).filter((f) => f.endsWith('.py')),
  ...readdirSync(path.join(remoteDir, 'preload')).map((f) => `preload/${f}`),
].sort();

describe('remote programs', () => {
  it('are all there', () => {
    expect(files).toEqual([
      'boot.py',
      'check-listener.py',
      'check-probe.py',
      'cluster-files.py',
      'files.py',
      'keeper.py',
      'launcher.py',
      'preload/scheduler_demand.py',
      'preload/scheduler_wait.py',
      'preload/ssl_error_queue.py',
      'shared.py',
    ]);
  });

  it('compile with py_compile and parse as Python 3.7', () => {
    const out = mkdtempSync(path.join(os.tmpdir(), 'sshc-pyc-'));
    try {
      const script = [
        'import ast, py_compile, sys',
        'print(sys.version_info[:2])',
        'for i, f in enumerate(sys.argv[2:]):',
        '    py_compile.compile(f, cfile="%s/%d.pyc" % (sys.argv[1], i), doraise=True)',
        '    ast.parse(open(f).read(), f, feature_version=(3, 7))',
      ].join('\n');
      const r = spawnSync(PYTHON, ['-c', script, out, ...files.map(programPath)], { encoding: 'utf8' });
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      expect(r.stdout).toMatch(/^\(3, \d+\)\n$/);
      // The texts as they travel (boot with -c, comment lines dropped; programs with their shared part) compile too.
      for (const text of [
        bootSource(),
        remoteProgram('launcher').source,
        remoteProgram('keeper').source,
        remoteProgram('cluster-files').source,
      ]) {
        const r2 = spawnSync(
          PYTHON,
          ['-c', 'import ast, sys; ast.parse(sys.argv[1], "program", feature_version=(3, 7))', text],
          { encoding: 'utf8' },
        );
        expect(r2.status, r2.stderr).toBe(0);
      }
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });

  it('have one directory check, shared.py, in front of each program that keeps files', () => {
    const defines = files.filter((f) => remoteSource(f).includes('def private_dir('));
    expect(defines).toEqual(['shared.py']);
    const shared = remoteSource('shared.py');
    expect(shared).toContain('os.O_NOFOLLOW');
    expect(remoteProgram('launcher').source.startsWith(shared)).toBe(true);
    expect(remoteProgram('keeper').source.startsWith(shared)).toBe(true);
    expect(remoteProgram('check-probe').source).not.toContain('def private_dir(');
    expect(bootSource()).toContain('def private_dir(path, shown, at=None, create=True):');
  });

  it('are named for ps and keyed by their content', () => {
    const l = remoteProgram('launcher');
    expect(l.name).toBe('sshcluster-launcher');
    expect(l.key).toMatch(/^[0-9a-f]{16}$/);
    expect(remoteProgram('keeper').key).not.toBe(l.key);
    expect(bootSource()).not.toContain("'");
    expect(bootSource()).not.toMatch(/^\s*#/m);
  });

  it('read a control line (DOWN and its token, TERM) however the channel splits it across reads', () => {
    // os.read stubbed to hand stdin over in the chunks the SSH channel may deliver.
    const line = 'DOWN 0123456789abcdef01234567\n';
    const script = `${remoteSource('shared.py')}
import sys
chunks = [${JSON.stringify(line.slice(0, 20))}.encode(), ${JSON.stringify(line.slice(20))}.encode(), b"TE", b"RM\\n"]
os.read = lambda fd, n: chunks.pop(0) if chunks else b""
until_stdin_closes(lambda s: print("signal", int(s)), lambda t: print("down", t.decode()))
`;
    const r = spawnSync(PYTHON, ['-S', '-c', script], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.stdout.trim().split('\n')).toEqual(['down 0123456789abcdef01234567', 'signal 15', 'signal 15']);
  });

  it("remove a cluster's files whole while another remover takes entries first (hosts sharing a TMPDIR, a look beside a launcher)", () => {
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'sshc-race-'));
    try {
      // Every listing names an entry already gone: what another remover took between the
      // listing and this one's removal of it.
      const script = `${remoteSource('shared.py')}
${remoteSource('files.py')}
base = os.path.join(os.environ["TMPDIR"], "sshcluster-%d" % os.getuid(), "c1")
for d in ("files", "scratch/__pycache__", "scratch/worker-1/deep"):
    os.makedirs(os.path.join(base, d), 0o700)
for f in ("files/ca.pem", "scratch/__pycache__/m.pyc", "scratch/worker-1/deep/spill"):
    open(os.path.join(base, f), "w").close()
os.chmod(os.path.dirname(base), 0o700)
listdir = os.listdir
os.listdir = lambda p=".": (["gone"] + listdir(p)) if isinstance(p, int) else listdir(p)
remove_cluster_files("c1")
print(os.path.exists(base))
`;
      const r = spawnSync(PYTHON, ['-S', '-c', script], { encoding: 'utf8', env: { ...process.env, TMPDIR: tmp } });
      expect(r.stderr).toBe('');
      expect(r.stdout.trim()).toBe('False');
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  describe('installed, started by the login shell from its file', () => {
    const program = { name: 'sshcluster-launcher', flags: ['-S'], source: 'pass\n', key: '0123456789abcdef' };
    const uid = process.getuid!();
    /** The lines under `shell` with `python` /bin/echo: what they exec, or "boot" when they fall through. */
    function run(shell: string, tmp: string, env: Record<string, string> = {}): string {
      const lines = [...installedExec('/bin/echo', program, ['NAME', 'dask']), 'echo boot'];
      const rc = shell === 'bash' ? ['--norc', '--noprofile'] : []; // bash may read .bashrc when stdin is a socket
      const r = spawnSync(shell, [...rc, '-c', lines.join('\n')], {
        encoding: 'utf8',
        env: { PATH: process.env.PATH!, TMPDIR: tmp, ...env },
      });
      expect(r.stderr).toBe('');
      return r.stdout.trim();
    }
    function withInstalled(test: (tmp: string, file: string) => void): void {
      const tmp = mkdtempSync(path.join(os.tmpdir(), 'sshc-inst-'));
      try {
        const dir = path.join(tmp, `sshcluster-${uid}`, program.key);
        mkdirSync(dir, { recursive: true, mode: 0o700 });
        const file = path.join(dir, program.name);
        writeFileSync(file, program.source, { mode: 0o600 });
        test(tmp, file);
      } finally {
        rmSync(tmp, { recursive: true, force: true });
      }
    }

    it.each(['bash', 'dash'])('runs the installed file under %s (uid from $UID or id -u)', (shell) => {
      withInstalled((tmp, file) => expect(run(shell, tmp)).toBe(`-S ${file} NAME dask`));
    });

    it('falls through to the boot command when nothing is installed, or $UID names a directory not ours', () => {
      const tmp = mkdtempSync(path.join(os.tmpdir(), 'sshc-inst-'));
      try {
        expect(run('dash', tmp)).toBe('boot');
      } finally {
        rmSync(tmp, { recursive: true, force: true });
      }
      withInstalled((tmp) => expect(run('dash', tmp, { UID: String(uid + 1) })).toBe('boot'));
    });
  });
});
