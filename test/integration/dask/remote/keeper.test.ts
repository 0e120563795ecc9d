// The keeper for real: it adopts a launcher's orphaned child it did not start, tails
// the orphan log, and hands the process back to the orphan timer on stdin EOF. It reads
// the log only from directories that are ours (mode 0700, no symlink), as the launcher
// writes it; a planted one is refused with "not our directory" and never read.
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { remoteProgram } from '../../../../src/dask/remote-programs.js';
import { installedPath, isDead, killStarted, launch, runProgram, sleep, stat, until } from './launcher-harness.js';

let tmp = '';
afterEach(() => {
  killStarted();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

const TICKING = ['sh', '-c', 'echo early; i=0; while sleep 0.1; do i=$((i+1)); echo tick $i; done'];
const KEEPER = installedPath('keeper');
const uid = os.userInfo().uid;

function orphaned(orphanGraceS: number) {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'sshc-keeper-'));
  const env = { SSHCLUSTER_ORPHAN_GRACE: String(orphanGraceS), TMPDIR: tmp, SSHCLUSTER_ID: 'c1' };
  return launch(TICKING, 1, env, 'w-0');
}

/** The keeper as the controller runs it: the process's name and PID, the cluster id and TMPDIR in its env. */
const keep = (pid: number | string) =>
  runProgram(KEEPER, ['w-0', String(pid)], { TMPDIR: tmp, SSHCLUSTER_ID: 'c1' }, remoteProgram('keeper').flags);

/** A launcher child orphaned at once (30 s orphan grace), and the keeper that adopted it. */
async function adopted() {
  const l = orphaned(30);
  const pid = await l.pid;
  l.proc.stdin.end();
  const k = keep(pid);
  expect(await k.pid).toBe(pid);
  return { l, k, pid };
}

describe('keeper', () => {
  it('adopts an orphaned launcher child, tails its log from the start, and re-orphans it on stdin EOF', async () => {
    const l = orphaned(1.5);
    const pid = await l.pid;
    expect(await l.nextLine()).toBe('early');
    l.proc.stdin.end();
    await sleep(500);
    const k = keep(pid);
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
    expect(k.stderr()).toBe('');
  });

  it('exits 0 when the adopted process ends', async () => {
    const { l, k, pid } = await adopted();
    process.kill(-pid, 'SIGTERM');
    expect((await k.exit).code).toBe(0);
    expect((await l.exit).code).toBe(143);
  });

  // DOWN is a teardown's TERM (the launcher also removes the cluster's files at it).
  it.each(['TERM', 'DOWN'])('signals the adopted group on a %s line on its stdin, then exits 0', async (line) => {
    const { l, k, pid } = await adopted();
    k.proc.stdin.write(`${line}\n`);
    expect((await k.exit).code).toBe(0);
    expect((await l.exit).code).toBe(143);
    expect(isDead(pid)).toBe(true);
  });

  it('refuses a PID that is not running', async () => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'sshc-keeper-'));
    const k = keep(999999999);
    expect((await k.exit).code).toBe(3);
    expect(k.stderr()).toContain('process 999999999 is not running');
  });

  it('never signals a parent that is not a launcher', async () => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'sshc-keeper-'));
    // setsid makes `sleep` lead its own group, as a launcher child would, under a plain python.
    const parent = runProgram(
      `import subprocess, sys
p = subprocess.Popen(["setsid", "sleep", "30"])
print("__SSHCLUSTER_PID__ %d" % p.pid, flush=True)
p.wait()`,
      [],
      {},
    );
    const pid = await parent.pid;
    expect(await until(() => !isDead(pid) && isLeader(pid), 2000)).toBe(true);
    const k = keep(pid);
    expect(await k.pid).toBe(pid);
    await until(() => k.stderr().includes('launcher'), 2000);
    expect(k.stderr()).toContain(`the launcher of ${pid} is gone`);
    await sleep(300);
    expect(parent.proc.exitCode).toBeNull(); // a default SIGUSR1 would have killed it
    process.kill(pid, 'SIGKILL');
    expect((await k.exit).code).toBe(0);
  });
});

describe('keeper on a planted log directory', () => {
  // Another user's directory holding what looks like our log (escape sequences and all).
  const plant = (): string => {
    const theirs = path.join(tmp, 'theirs');
    mkdirSync(path.join(theirs, 'c1'), { recursive: true });
    writeFileSync(path.join(theirs, 'c1', 'w-0.log'), 'PLANTED \x1b]0;HACKED\x07\n');
    return theirs;
  };
  const base = () => path.join(tmp, `sshcluster-${uid}`);
  const cases: [string, () => string, RegExp][] = [
    ['the user directory as a symlink', () => (symlinkSync(plant(), base()), base()), /a symlink or not a directory/],
    [
      'the cluster directory as a symlink',
      () => (
        mkdirSync(base(), { mode: 0o700 }),
        symlinkSync(path.join(plant(), 'c1'), path.join(base(), 'c1')),
        path.join(base(), 'c1')
      ),
      /a symlink/,
    ],
    ['a directory writable by others', () => (plantInPlace(base(), 0o777), base()), /mode 0777, writable by others/],
    // Needs root to give the directory away, as CI and the e2e suite run.
    [
      'a directory of another owner',
      () => (plantInPlace(base(), 0o700), chownSync(base(), 65534, 65534), base()),
      /owned by uid 65534/,
    ],
  ];

  function plantInPlace(dir: string, mode: number): void {
    mkdirSync(path.join(dir, 'c1'), { recursive: true, mode: 0o700 });
    writeFileSync(path.join(dir, 'c1', 'w-0.log'), 'PLANTED \x1b]0;HACKED\x07\n');
    chmodSync(dir, mode);
  }

  for (const [what, make, why] of cases) {
    it(`refuses ${what}: "not our directory", nothing read, the process still adopted`, async () => {
      tmp = mkdtempSync(path.join(os.tmpdir(), 'sshc-keeper-'));
      const dir = make();
      // A live process of ours with nothing to say: the launcher itself writes no log here.
      const l = launch(['sleep', '30'], 1, { SSHCLUSTER_ORPHAN_GRACE: '30', TMPDIR: tmp, SSHCLUSTER_ID: 'c1' }, 'w-0');
      const pid = await l.pid;
      const k = keep(pid);
      expect(await k.pid).toBe(pid);
      expect(await until(() => k.stderr().includes('not our directory'), 3000)).toBe(true);
      expect(k.stderr()).toContain(`sshcluster-keeper: not our directory: ${dir} (`);
      expect(k.stderr()).toMatch(why);
      await sleep(600); // a few tail rounds
      expect(k.lines.join('\n')).not.toContain('PLANTED');
      process.kill(-pid, 'SIGTERM');
      expect((await k.exit).code).toBe(0);
      expect(k.lines.join('\n')).not.toContain('PLANTED');
      expect(k.stderr().match(/not our directory/g)).toHaveLength(1);
    });
  }
});

const isLeader = (pid: number): boolean => stat(pid)?.pgrp === pid;
