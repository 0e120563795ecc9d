// The launcher for real: /usr/bin/python3 runs it, `sleep`/`sh` are the children.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import {
  installedPath,
  isDead,
  killStarted,
  launch,
  PYTHON,
  runProgram,
  sleep,
  started,
  stat,
  until,
} from './launcher-harness.js';

afterEach(killStarted);

describe('launcher', () => {
  it('prints the child PID; the child leads its own session and process group', async () => {
    const l = launch(['sleep', '30']);
    const pid = await l.pid;
    expect(pid).not.toBe(l.proc.pid);
    expect(stat(pid)).toMatchObject({ pgrp: pid, session: pid });
    // The PID line comes just before the exec, so the command shows up a moment later.
    const argv0 = (): string | undefined => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0];
    expect(await until(() => argv0() === 'sleep', 2000)).toBe(true);
    l.proc.stdin.end();
    await l.exit;
  });

  it('stops the child when its stdin closes (the SSH session ended)', async () => {
    const l = launch(['sleep', '30'], 5);
    const pid = await l.pid;
    const t0 = Date.now();
    l.proc.stdin.end();
    expect(await l.exit).toEqual({ code: 128 + 15, signal: null });
    expect(Date.now() - t0).toBeLessThan(4000);
    expect(isDead(pid)).toBe(true);
  });

  it('signals the group on a TERM line on its stdin, which stays open (the controller stops a process without a new exec)', async () => {
    const l = launch(['sh', '-c', 'trap "echo got TERM; exit 5" TERM; sleep 60 & wait'], 5);
    const pid = await l.pid;
    // A line split across writes still counts; other lines are ignored.
    l.proc.stdin.write('hello\nTE');
    await sleep(100);
    expect(isDead(pid)).toBe(false);
    l.proc.stdin.write('RM\n');
    expect(await l.nextLine()).toBe('got TERM');
    expect((await l.exit).code).toBe(5);
    expect(l.proc.stdin.writableEnded).toBe(false);
  });

  // What a Dask process logs once its event loop has ended; then only its interpreter's shutdown follows.
  const ending = (code: number, rest: number) =>
    `trap 'echo "2026-12-02 06:00:00,000 - distributed.dask_worker - INFO - End worker" >&2; sleep ${rest}; exit ${code}' TERM; echo up; sleep 60 & wait`;

  it("at a teardown (a DOWN line), kills the group at Dask's last log line instead of waiting out the interpreter's shutdown", async () => {
    const l = launch(['sh', '-c', ending(7, 60)], 120);
    await l.pid;
    expect(await l.nextLine()).toBe('up');
    l.proc.stdin.write('DOWN t0k3n\n');
    expect(await l.exit).toEqual({ code: 128 + 9, signal: null });
    expect(l.stderr()).toContain('- INFO - End worker');
  });

  it("gives a DOWN line's token back as its last line when nothing else of the cluster runs there, also when the line came in pieces", async () => {
    const l = launch(['sh', '-c', ending(7, 60)], 120, { SSHCLUSTER_ID: `down${process.pid}x${Date.now()}` });
    await l.pid;
    expect(await l.nextLine()).toBe('up');
    l.proc.stdin.write('DOWN 0123456789abcdef');
    await sleep(100);
    l.proc.stdin.write('01234567\n');
    expect(await l.exit).toEqual({ code: 128 + 9, signal: null });
    expect(l.lines.at(-1)).toBe('__SSHCLUSTER_CLEAN__ 0123456789abcdef01234567');
  });

  it('at a teardown, a stray in its own session that holds the output pipes does not keep the launcher past the grace', async () => {
    // A task's `Popen(..., start_new_session=True)`: the group's kill misses it and it keeps
    // the child's stdout and stderr open. The teardown's look stops it; the launcher must
    // end well within the teardown's 10 s grace, or its worker is reported killed by force.
    const l = launch(['sh', '-c', 'setsid sleep 60 & echo $!; echo up; wait'], 10);
    await l.pid;
    started.push(Number(await l.nextLine()));
    expect(await l.nextLine()).toBe('up');
    const t0 = Date.now();
    l.proc.stdin.write('DOWN t0k3n\n');
    expect((await l.exit).code).toBe(128 + 15);
    expect(Date.now() - t0).toBeLessThan(8_000);
  });

  it('on a plain TERM line, lets the process end on its own after that line', async () => {
    const l = launch(['sh', '-c', ending(7, 1)], 120);
    await l.pid;
    expect(await l.nextLine()).toBe('up');
    l.proc.stdin.write('TERM\n');
    expect(await l.exit).toEqual({ code: 7, signal: null });
  });

  it('kills the group on a KILL line, even when TERM is ignored', async () => {
    const l = launch(['sh', '-c', 'trap "" TERM; sleep 60 & echo $!; wait'], 30);
    const pid = await l.pid;
    const grandchild = Number(await l.nextLine());
    started.push(grandchild);
    l.proc.stdin.write('TERM\n');
    await sleep(200);
    expect(isDead(pid)).toBe(false);
    l.proc.stdin.write('KILL\n');
    expect((await l.exit).code).toBe(128 + 9);
    expect(await until(() => isDead(grandchild), 2000)).toBe(true);
  });

  it('gives the scheduler, a nanny and a worker their .py preloads by module name, their directories first on PYTHONPATH (Dask copies a path into its scratch space)', async () => {
    const show = 'import os, sys; print(os.environ["PYTHONPATH"]); print(" ".join(sys.argv[1:]))';
    const argv = [
      '--preload',
      '/d/ssl.py',
      '--preload-nanny',
      '/d/ssl.py',
      '--preload-nanny',
      '/e/wait.py',
      '--preload-nanny',
      'mod',
      'x.py',
    ];
    const l = launch([PYTHON, '-c', show, ...argv], 1, { PYTHONPATH: '/user/lib' });
    await l.pid;
    expect([await l.nextLine(), await l.nextLine()]).toEqual([
      '/d:/e:/user/lib',
      '--preload ssl --preload-nanny ssl --preload-nanny wait --preload-nanny mod x.py',
    ]);
    expect((await l.exit).code).toBe(0);
    // Without one, the environment is as it was: no PYTHONPATH appears.
    const plain = launch([PYTHON, '-c', 'import os; print(os.environ.get("PYTHONPATH"))', '--preload', 'mod', 'x.py']);
    await plain.pid;
    expect(await plain.nextLine()).toBe('None');
  });

  it('exits with the child exit code', async () => {
    const l = launch(['sh', '-c', 'exit 7']);
    expect(await l.pid).toBeGreaterThan(0);
    expect((await l.exit).code).toBe(7);
  });

  it('stops the child on SIGTERM to the launcher', async () => {
    const l = launch(['sleep', '30']);
    const pid = await l.pid;
    l.proc.kill('SIGTERM');
    expect((await l.exit).code).toBe(143);
    expect(isDead(pid)).toBe(true);
  });

  it('kills grandchildren in the group, with SIGKILL after the grace period if TERM is ignored', async () => {
    const l = launch(['sh', '-c', 'trap "" TERM; sleep 60 & echo $!; wait'], 1);
    const pid = await l.pid;
    const grandchild = Number(await l.nextLine());
    started.push(grandchild);
    expect(stat(grandchild)?.pgrp).toBe(pid);
    const t0 = Date.now();
    l.proc.kill('SIGTERM');
    expect((await l.exit).code).toBe(128 + 9);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
    expect(await until(() => isDead(grandchild), 2000)).toBe(true);
  });

  it('cleans up what the child left behind when it exits on its own', async () => {
    const l = launch(['sh', '-c', 'sleep 60 & echo $!; exit 3']);
    await l.pid;
    const grandchild = Number(await l.nextLine());
    started.push(grandchild);
    expect((await l.exit).code).toBe(3);
    expect(await until(() => isDead(grandchild), 2000)).toBe(true);
  });

  it('does not wait for a group member that is a zombie nobody reaps (a container whose PID 1 is no init)', async () => {
    // The wrapper is the subreaper the orphaned `sleep` goes to, and never reaps it.
    const wrapper = `import ctypes, subprocess, sys
ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)
sys.exit(subprocess.Popen(sys.argv[1:]).wait())`;
    const graceS = 30;
    const l = runProgram(
      wrapper,
      [PYTHON, installedPath('launcher'), 'test-0', 'sh', '-c', 'sleep 60 & echo $!; exit 0'],
      { SSHCLUSTER_GRACE: String(graceS) },
    );
    await l.pid;
    const grandchild = Number(await l.nextLine());
    started.push(grandchild);
    const t0 = Date.now();
    expect((await l.exit).code).toBe(0);
    expect(Date.now() - t0).toBeLessThan((graceS * 1000) / 2);
  });

  it('reports a command that cannot be executed: PID line, message on stderr, exit 127', async () => {
    const l = launch(['/nonexistent/dask-worker']);
    expect(await l.pid).toBeGreaterThan(0);
    expect((await l.exit).code).toBe(127);
    expect(l.lines).toEqual([]);
    expect(l.stderr()).toMatch(/sshcluster-launcher: cannot run \/nonexistent\/dask-worker: .*No such file/);
  });

  it('prints the PID line first even when the child writes to stdout at once', async () => {
    const l = launch(['echo', 'hello']);
    expect(await l.pid).toBeGreaterThan(0);
    expect(await l.nextLine()).toBe('hello');
    expect((await l.exit).code).toBe(0);
  });
});
