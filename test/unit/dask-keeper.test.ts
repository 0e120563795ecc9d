// The keeper for real: it adopts a launcher's orphaned child it did not start, tails
// the orphan log, and hands the process back to the orphan timer on stdin EOF.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { KEEPER } from '../../src/dask/keeper.js';
import { orphanLogPath } from '../../src/dask/remote-command.js';
import { isDead, killStarted, launch, runProgram, sleep, until } from './launcher-harness.js';

let tmp = '';
afterEach(() => {
  killStarted();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

const TICKING = ['sh', '-c', 'echo early; i=0; while sleep 0.1; do i=$((i+1)); echo tick $i; done'];

function orphaned(orphanGraceS: number) {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'sshc-keeper-'));
  const l = launch(TICKING, 1, { SSHCLUSTER_ORPHAN_GRACE: String(orphanGraceS), TMPDIR: tmp, SSHCLUSTER_ID: 'c1', SSHCLUSTER_NAME: 'w-0' });
  // The controller computes the log path in sh on the host, as the launcher does in Python.
  const r = spawnSync('/bin/sh', ['-c', `echo ${orphanLogPath('c1', 'w-0')}`], { env: { PATH: '/usr/bin:/bin', TMPDIR: tmp }, encoding: 'utf8' });
  return { l, log: r.stdout.trim() };
}

describe('keeper', () => {
  it('adopts an orphaned launcher child, tails its log from the start, and re-orphans it on stdin EOF', async () => {
    const { l, log } = orphaned(1.5);
    const pid = await l.pid;
    expect(await l.nextLine()).toBe('early');
    l.proc.stdin.end();
    await sleep(500);
    const k = runProgram(KEEPER, [String(pid), log], {});
    expect(await k.pid).toBe(pid);
    // Lines written while no controller was there come first, then new ones follow.
    const first = await k.nextLine();
    expect(first).toMatch(/^tick \d+$/);
    const next = Number(/tick (\d+)/.exec(await k.nextLine())?.[1]);
    expect(next).toBe(Number(first.slice(5)) + 1);
    // Adopted: the launcher no longer stops the child when its grace runs out.
    await sleep(2500);
    expect(isDead(pid)).toBe(false);
    const t0 = Date.now();
    k.proc.stdin.end();
    expect((await k.exit).code).toBe(0);
    expect((await l.exit).code).toBe(143);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1300);
    expect(isDead(pid)).toBe(true);
  });

  it('exits 0 when the adopted process ends', async () => {
    const { l, log } = orphaned(30);
    const pid = await l.pid;
    l.proc.stdin.end();
    const k = runProgram(KEEPER, [String(pid), log], {});
    expect(await k.pid).toBe(pid);
    process.kill(-pid, 'SIGTERM');
    expect((await k.exit).code).toBe(0);
    expect((await l.exit).code).toBe(143);
  });

  it('refuses a PID that is not running', async () => {
    const k = runProgram(KEEPER, ['999999999', '/nonexistent.log'], {});
    expect((await k.exit).code).toBe(3);
    expect(k.stderr()).toContain('process 999999999 is not running');
  });

  it('never signals a parent that is not a launcher', async () => {
    // setsid makes `sleep` lead its own group, as a launcher child would, under a plain sh.
    const parent = runProgram(`import subprocess, sys
p = subprocess.Popen(["setsid", "sleep", "30"])
print("__SSHCLUSTER_PID__ %d" % p.pid, flush=True)
p.wait()`, [], {});
    const pid = await parent.pid;
    expect(await until(() => !isDead(pid) && isLeader(pid), 2000)).toBe(true);
    const k = runProgram(KEEPER, [String(pid), '/nonexistent.log'], {});
    expect(await k.pid).toBe(pid);
    await until(() => k.stderr().includes('launcher'), 2000);
    expect(k.stderr()).toContain(`the launcher of ${pid} is gone`);
    await sleep(300);
    expect(parent.proc.exitCode).toBeNull(); // a default SIGUSR1 would have killed it
    process.kill(pid, 'SIGKILL');
    expect((await k.exit).code).toBe(0);
  });
});

function isLeader(pid: number): boolean {
  try {
    return spawnSync('ps', ['-o', 'pgid=', '-p', String(pid)], { encoding: 'utf8' }).stdout.trim() === String(pid);
  } catch {
    return false;
  }
}
