// listTagged on this machine's real /proc, through the local shell: a process is ours
// only when its environment has both this cluster's id and this host's name, each as
// a whole variable (a longer id or another host's tag does not count).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLUSTER_ID_ENV } from '../../../../src/dask/remote-command.js';
import { LocalShell } from '../../../../src/app/transport/local-shell.js';
import { HOST_TAG, ShellHostRunner, type HostRunnerOptions } from '../../../../src/app/transport/host-runner.js';
import type { ShellPort } from '../../../../src/ssh/shell-port.js';
import type { ProcessSpec, RunningProcess } from '../../../../src/cluster/ports.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

function sleeper(env: Record<string, string>): number {
  const c = spawn('sleep', ['60'], { env: { PATH: process.env.PATH, ...env }, stdio: 'ignore' });
  children.push(c);
  return c.pid!;
}

/** A worker on `host` whose process is `python3 -c CODE` under TMPDIR `tmpdir`. */
const pySpec = (name: string, code: string, tmpdir: string, host = 'h1'): ProcessSpec => ({
  name,
  host,
  role: 'worker',
  argv: ['/usr/bin/python3', '-c', code],
  env: { TMPDIR: tmpdir },
});

/** Python that prints `line`, then sleeps a minute. */
const sleepsAfter = (line: string) => `import time; print(${JSON.stringify(line)}, flush=True); time.sleep(60)`;

/** `p` once it has printed `line`. */
async function printed(p: RunningProcess, line: string): Promise<RunningProcess> {
  await new Promise<void>((up) => p.onLine((_, l) => l === line && up()));
  return p;
}

/** A runner for cluster `clusterId` on host h1 (local shell, python3, no env) unless `o` says otherwise. */
const hostRunner = (clusterId: string, o: Partial<HostRunnerOptions> = {}) =>
  new ShellHostRunner({
    host: 'h1',
    clusterId,
    setup: [],
    shell: new LocalShell(process.env),
    python: 'python3',
    env: {},
    ...o,
  });

/** A local shell that counts the commands it runs: each is one login shell on a real host. */
function counted() {
  const shell = new LocalShell(process.env);
  const count = { n: 0 };
  const port: ShellPort = {
    exec: (c) => (count.n++, shell.exec(c)),
    run: (c, o) => (count.n++, shell.run(c, o)),
    forwardOut: (h, p) => shell.forwardOut(h, p),
    onClose: () => shell.onClose(),
    close: () => shell.close(),
  };
  return { port, count };
}

describe('ShellHostRunner.listTagged', () => {
  it('finds exactly the processes tagged with this cluster and this host', async () => {
    const id = `t${process.pid}x${Date.now()}`;
    const ours = sleeper({ [CLUSTER_ID_ENV]: id, [HOST_TAG]: 'h1' });
    const otherHost = sleeper({ [CLUSTER_ID_ENV]: id, [HOST_TAG]: 'h2' });
    const longerId = sleeper({ [CLUSTER_ID_ENV]: `${id}0`, [HOST_TAG]: 'h1' });
    const untagged = sleeper({});
    const runner = hostRunner(id);
    const found = (await runner.listTagged()).map((p) => p.pid);
    expect(found).toEqual([ours]);
    expect(found).not.toContain(otherHost);
    expect(found).not.toContain(longerId);
    expect(found).not.toContain(untagged);
  });

  it('finds them too where grep has no -z (old busybox): the per-process loop then', async () => {
    const id = `z${process.pid}x${Date.now()}`;
    const ours = sleeper({ [CLUSTER_ID_ENV]: id, [HOST_TAG]: 'h1' });
    sleeper({ [CLUSTER_ID_ENV]: id, [HOST_TAG]: 'h2' });
    const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'sshc-grep-'));
    const real = ['/usr/bin/grep', '/bin/grep'].find((g) => fs.existsSync(g))!;
    fs.writeFileSync(
      path.join(bin, 'grep'),
      `#!/bin/sh\nfor a in "$@"; do case "$a" in -*z*) echo "grep: invalid option -- 'z'" >&2; exit 2;; esac; done\nexec ${real} "$@"\n`,
      { mode: 0o755 },
    );
    try {
      const shell = new LocalShell({ ...process.env, PATH: `${bin}:${process.env.PATH}` });
      const runner = hostRunner(id, { shell });
      expect((await runner.listTagged()).map((p) => p.pid)).toEqual([ours]);
    } finally {
      fs.rmSync(bin, { recursive: true, force: true });
    }
  });

  it('finds nothing (and does not wait on stdin) when no process carries the id', async () => {
    const runner = hostRunner(`none${process.pid}`);
    expect(await runner.listTagged()).toEqual([]);
  });
});

describe('ShellHostRunner.clearUp', () => {
  async function withFiles(id: string, host = 'h1', tmpdirs?: string[]) {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sshc-clearup-'));
    const { port, count } = counted();
    const files = { files: [{ name: 'ca.pem', content: 'x' }], optional: false };
    const runner = hostRunner(id, {
      host,
      shell: port,
      python: '/usr/bin/python3',
      env: { TMPDIR: tmp },
      files,
      tmpdirs: tmpdirs && (() => [tmp, ...tmpdirs]),
    });
    // A process given the files, which ends at once: the files stay.
    const p = await runner.start(pySpec('p-0', 'pass', tmp, host));
    expect(await p.exited).toEqual({ code: 0, signal: null });
    const dir = path.join(tmp, `sshcluster-${os.userInfo().uid}`, id, 'files');
    expect(fs.readdirSync(dir)).toEqual(['ca.pem']);
    count.n = 0;
    return { runner, count, dir, tmp };
  }

  it('on a host with nothing of ours left, looks and removes the files in one exec', async () => {
    const { runner, count, dir, tmp } = await withFiles(`c${process.pid}x${Date.now()}`);
    try {
      expect(await runner.clearUp({ graceMs: 0 })).toEqual({ stopped: [], forced: [], left: [] });
      expect(count.n).toBe(1);
      expect(fs.existsSync(dir)).toBe(false);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('also removes the files under the other TMPDIRs it is given (apply changed the host env)', async () => {
    const tmp2 = fs.mkdtempSync(path.join(os.tmpdir(), 'sshc-clearup2-'));
    const { runner, count, dir, tmp } = await withFiles(`t${process.pid}x${Date.now()}`, 'h1', [tmp2]);
    try {
      const p = await runner.start(pySpec('p-1', 'pass', tmp2));
      expect(await p.exited).toEqual({ code: 0, signal: null });
      const dir2 = path.join(tmp2, `sshcluster-${os.userInfo().uid}`, path.basename(path.dirname(dir)), 'files');
      expect(fs.readdirSync(dir2)).toEqual(['ca.pem']);
      count.n = 0;
      expect(await runner.clearUp({ graceMs: 0 })).toEqual({ stopped: [], forced: [], left: [] });
      expect(count.n).toBe(2);
      expect([fs.existsSync(dir), fs.existsSync(dir2)]).toEqual([false, false]);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
      fs.rmSync(tmp2, { recursive: true, force: true });
    }
  });

  it('says nothing of files on a host whose remote_python is missing: no launcher ran there to write any', async () => {
    const { port } = counted();
    const runner = hostRunner(`n${process.pid}`, { shell: port, python: '/nonexistent/python3', keepsFiles: true });
    expect(await runner.clearUp({ graceMs: 0 })).toEqual({ stopped: [], forced: [], left: [] });
  });

  it('says why when the files cannot be removed, and still counts the host as clean', async () => {
    const { runner, count, dir, tmp } = await withFiles(`e${process.pid}x${Date.now()}`);
    try {
      fs.chmodSync(path.dirname(dir), 0o777); // the cluster's directory, now writable by others: not ours
      const r = await runner.clearUp({ graceMs: 0 });
      expect(r.left).toEqual([]);
      expect(r.filesError).toMatch(
        /^could not remove the cluster's files: sshcluster-files: not our directory: .*writable by others/,
      );
      expect(count.n).toBe(1);
      expect(fs.existsSync(dir)).toBe(true);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('stops what is still tagged first, and removes the files only once it is gone', async () => {
    const id = `d${process.pid}x${Date.now()}`;
    const ours = sleeper({ [CLUSTER_ID_ENV]: id, [HOST_TAG]: 'h1' });
    const { runner, count, dir, tmp } = await withFiles(id);
    try {
      const r = await runner.clearUp({ graceMs: 0 });
      expect(r).toEqual({ stopped: [ours], forced: [ours], left: [] });
      expect(fs.existsSync(dir)).toBe(false);
      // The look, the KILL, the verify and the removal: one login shell on the host.
      expect(count.n).toBe(1);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('with a grace, TERM ends what was found, still in one exec, and nothing is forced', async () => {
    const id = `g${process.pid}x${Date.now()}`;
    const ours = sleeper({ [CLUSTER_ID_ENV]: id, [HOST_TAG]: 'h1' });
    const { runner, count, dir, tmp } = await withFiles(id);
    try {
      expect(await runner.clearUp({ graceMs: 10_000 })).toEqual({ stopped: [ours], forced: [], left: [] });
      expect(count.n).toBe(1);
      expect(fs.existsSync(dir)).toBe(false);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('what ignores TERM is KILLed after the grace, in the same exec', async () => {
    const id = `i${process.pid}x${Date.now()}`;
    const c = spawn(
      '/usr/bin/python3',
      [
        '-c',
        "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); print('up', flush=True); time.sleep(60)",
      ],
      {
        env: { PATH: process.env.PATH, [CLUSTER_ID_ENV]: id, [HOST_TAG]: 'h1' },
        stdio: ['ignore', 'pipe', 'ignore'],
      },
    );
    children.push(c);
    await new Promise((resolve) => c.stdout!.once('data', resolve)); // the trap is set
    const { port, count } = counted();
    const runner = hostRunner(id, { shell: port });
    expect(await runner.clearUp({ graceMs: 300 })).toEqual({ stopped: [c.pid], forced: [c.pid], left: [] });
    expect(count.n).toBe(1);
  });
});

describe("a teardown's stop (a DOWN line): the host's last launcher removes the cluster's files", () => {
  /**
   * `names` running with the cluster's files (their child prints `out` first), on a runner
   * whose remote_python logs each Python the look starts and whose shell counts its execs.
   */
  async function running(names: string[], out = 'up') {
    const id = `l${process.pid}x${Date.now()}`;
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sshc-down-'));
    const pythons = path.join(tmp, 'pythons');
    const python = path.join(tmp, 'python3');
    // One line a run: its last argument (the removal's is the cluster id).
    fs.writeFileSync(python, `#!/bin/sh\nfor a; do l=$a; done; echo "$l" >> ${pythons}\nexec /usr/bin/python3 "$@"\n`, {
      mode: 0o755,
    });
    const { port, count } = counted();
    const runner = hostRunner(id, {
      shell: port,
      python,
      env: { TMPDIR: tmp },
      files: { files: [{ name: 'ca.pem', content: 'x' }], optional: false },
    });
    const procs = await Promise.all(
      names.map(async (name) => printed(await runner.start(pySpec(name, sleepsAfter(out), tmp)), out)),
    );
    const dir = path.join(tmp, `sshcluster-${os.userInfo().uid}`, id);
    expect(fs.readdirSync(path.join(dir, 'files'))).toEqual(['ca.pem']);
    const looksPythons = () => (fs.existsSync(pythons) ? fs.readFileSync(pythons, 'utf8').trim().split('\n') : []);
    count.n = 0;
    return { id, tmp, runner, procs, dir, looksPythons, count };
  }

  it("the last one to end removes them and says so (another host's process on the same kernel does not count); no look is then needed", async () => {
    const { id, tmp, runner, procs, dir, looksPythons, count } = await running(['w-0', 'w-1']);
    sleeper({ [CLUSTER_ID_ENV]: id, [HOST_TAG]: 'h2' });
    try {
      const [w0, w1] = procs;
      const first = await w0!.stop(10_000, undefined, { clusterEnds: true });
      expect([first.forced, first.hostClean]).toEqual([false, undefined]); // w-1 still runs
      expect(fs.readdirSync(path.join(dir, 'files'))).toEqual(['ca.pem']);
      const last = await w1!.stop(10_000, undefined, { clusterEnds: true });
      expect([last.forced, last.hostClean]).toEqual([false, true]);
      expect(fs.existsSync(dir)).toBe(false);
      // Told so, the look opens no shell; a look anyway finds nothing and starts no Python.
      expect(await runner.clearUp({ graceMs: 0, reportedClean: true })).toEqual({ stopped: [], forced: [], left: [] });
      expect(count.n).toBe(0);
      expect(await runner.clearUp({ graceMs: 0 })).toEqual({ stopped: [], forced: [], left: [] });
      expect([count.n, looksPythons()]).toEqual([1, []]);
    } finally {
      runner.close();
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  it("the process's own output cannot say the host is clean: only the launcher knows the stop's token", async () => {
    // The child prints what a clean report looks like, but cannot know the token.
    const forged = '__SSHCLUSTER_CLEAN__ 0123456789abcdef01234567';
    const { id, tmp, runner, procs, dir } = await running(['w-0'], forged);
    sleeper({ [CLUSTER_ID_ENV]: id, [HOST_TAG]: 'h1' }); // something of ours still runs on h1
    try {
      const r = await procs[0]!.stop(10_000, undefined, { clusterEnds: true });
      expect([r.forced, r.hostClean]).toEqual([false, undefined]);
      expect(fs.readdirSync(path.join(dir, 'files'))).toEqual(['ca.pem']);
    } finally {
      runner.close();
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('a host whose processes ran under two TMPDIRs (apply changed its env mid-way): the files under both go, whichever said clean', async () => {
    // The current TMPDIR's process ends first (the old one still runs: its files stay);
    // the old TMPDIR's ends last and says clean, having removed only its own files.
    const { id, tmp, runner, procs, dir } = await running(['w-old']);
    const tmp2 = fs.mkdtempSync(path.join(os.tmpdir(), 'sshc-down2-'));
    const runner2 = hostRunner(id, {
      shell: counted().port,
      python: '/usr/bin/python3',
      env: { TMPDIR: tmp2 },
      files: { files: [{ name: 'ca.pem', content: 'x' }], optional: false },
      tmpdirs: () => [tmp, tmp2],
    });
    try {
      const now = await printed(await runner2.start(pySpec('w-new', sleepsAfter('up'), tmp2)), 'up');
      const dir2 = path.join(tmp2, `sshcluster-${os.userInfo().uid}`, id);
      expect((await now.stop(10_000, undefined, { clusterEnds: true })).hostClean).toBeUndefined();
      expect((await procs[0]!.stop(10_000, undefined, { clusterEnds: true })).hostClean).toBe(true);
      expect([fs.existsSync(dir), fs.existsSync(dir2)]).toEqual([false, true]);
      expect(await runner2.clearUp({ graceMs: 0, reportedClean: true })).toEqual({ stopped: [], forced: [], left: [] });
      expect([fs.existsSync(dir), fs.existsSync(dir2)]).toEqual([false, false]);
    } finally {
      runner.close();
      runner2.close();
      fs.rmSync(tmp, { recursive: true, force: true });
      fs.rmSync(tmp2, { recursive: true, force: true });
    }
  });

  it('a plain stop (a scale-down, a restart) leaves them, and the look removes them with a Python of its own', async () => {
    const { id, tmp, runner, procs, dir, looksPythons } = await running(['w-0']);
    try {
      expect(await procs[0]!.stop(10_000)).toMatchObject({ forced: false });
      expect(fs.readdirSync(path.join(dir, 'files'))).toEqual(['ca.pem']);
      expect(await runner.clearUp({ graceMs: 0 })).toEqual({ stopped: [], forced: [], left: [] });
      expect(fs.existsSync(dir)).toBe(false);
      expect(looksPythons()).toEqual([id]);
    } finally {
      runner.close();
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});
