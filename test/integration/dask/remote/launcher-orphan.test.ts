// The launcher's orphan grace (SSHCLUSTER_ORPHAN_GRACE, SIGUSR1 adopted, SIGUSR2
// orphaned again) and its output relay (pipes → stdout/stderr, then the orphan log).
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isDead, killStarted, launch, sleep, until } from './launcher-harness.js';

let tmp = '';
afterEach(() => {
  killStarted();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

/** An orphanable launcher whose log goes under a fresh TMPDIR. */
function orphanable(argv: string[], orphanGraceS: number) {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'sshc-orphan-'));
  const env = { SSHCLUSTER_ORPHAN_GRACE: String(orphanGraceS), TMPDIR: tmp, SSHCLUSTER_ID: 'c1' };
  const log = path.join(tmp, `sshcluster-${os.userInfo().uid}`, 'c1', 'w_0.log');
  return { l: launch(argv, 1, env, 'w/0'), log };
}

const TICKING = ['sh', '-c', 'echo hello; echo oops >&2; i=0; while sleep 0.1; do i=$((i+1)); echo tick $i; done'];

describe('launcher orphan grace', () => {
  it('with grace 0 stops the group as soon as stdin closes', async () => {
    const l = launch(['sleep', '30'], 5, { SSHCLUSTER_ORPHAN_GRACE: '0' });
    const pid = await l.pid;
    const t0 = Date.now();
    l.proc.stdin.end();
    expect((await l.exit).code).toBe(143);
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(isDead(pid)).toBe(true);
  });

  it('keeps the process for the grace period, then stops it and keeps the log', async () => {
    const { l, log } = orphanable(TICKING, 1.5);
    const pid = await l.pid;
    const t0 = Date.now();
    l.proc.stdin.end();
    await sleep(800);
    expect(isDead(pid)).toBe(false);
    expect((await l.exit).code).toBe(143);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1400);
    expect(isDead(pid)).toBe(true);
    const text = readFileSync(log, 'utf8');
    expect(text).toMatch(/^tick \d+$/m);
    expect(text).toContain('no controller adopted this process within 1.5 s; stopping it');
  });

  it('SIGUSR1 (adopted) cancels the timer; SIGUSR2 (orphaned again) restarts it', async () => {
    const { l } = orphanable(['sleep', '30'], 1);
    const pid = await l.pid;
    l.proc.stdin.end();
    await sleep(300);
    l.proc.kill('SIGUSR1');
    await sleep(1500);
    expect(isDead(pid)).toBe(false);
    const t0 = Date.now();
    l.proc.kill('SIGUSR2');
    expect((await l.exit).code).toBe(143);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
    expect(isDead(pid)).toBe(true);
  });

  it('adopted while its old channel is still open, it survives that channel closing later', async () => {
    const { l } = orphanable(['sleep', '30'], 0.5);
    const pid = await l.pid;
    l.proc.kill('SIGUSR1');
    await sleep(200);
    l.proc.stdin.end();
    await sleep(1200);
    expect(isDead(pid)).toBe(false);
    l.proc.kill('SIGUSR2');
    expect((await l.exit).code).toBe(143);
  });

  it('ignores SIGUSR2 while its channel is still open', async () => {
    const { l } = orphanable(['sleep', '30'], 0.5);
    const pid = await l.pid;
    l.proc.kill('SIGUSR2');
    await sleep(1200);
    expect(isDead(pid)).toBe(false);
    l.proc.stdin.end();
    expect((await l.exit).code).toBe(143);
  });
});

describe('launcher output relay', () => {
  it('relays stdout and stderr apart, then writes to the log once stdin closed; removes it at exit', async () => {
    const { l, log } = orphanable(TICKING, 30);
    await l.pid;
    expect(await l.nextLine()).toBe('hello');
    expect(await l.nextLine()).toMatch(/^tick \d+$/);
    expect(await until(() => l.stderr() === 'oops\n', 2000)).toBe(true);
    l.proc.stdin.end();
    expect(await until(() => existsSync(log) && /tick/.test(readFileSync(log, 'utf8')), 3000)).toBe(true);
    const first = Number(/tick (\d+)/.exec(readFileSync(log, 'utf8'))![1]);
    const lastRelayed = Math.max(...l.lines.map((x) => Number(/tick (\d+)/.exec(x)?.[1] ?? 0)));
    // Every line goes to exactly one place: the channel until EOF, the log after it.
    expect(first).toBeGreaterThan(lastRelayed);
    l.proc.kill('SIGTERM');
    expect((await l.exit).code).toBe(143);
    expect(existsSync(log)).toBe(false);
  });

  it('never blocks the child: a reader that stops costs dropped lines, not a stuck process', async () => {
    const l = launch([process.execPath, '-e', 'process.stdout.write(("x".repeat(999) + "\\n").repeat(20000))'], 1);
    const pid = await l.pid;
    l.proc.stdout.pause();
    // 20 MB into a stopped reader: the child still finishes (its launcher reaps it).
    expect(await until(() => isDead(pid), 15_000)).toBe(true);
    let bytes = 0;
    let text = '';
    l.proc.stdout.on('data', (c: Buffer) => {
      bytes += c.length;
      text = (text + c.toString()).slice(-500);
    });
    l.proc.stdout.resume();
    expect((await l.exit).code).toBe(0);
    await sleep(100);
    expect(bytes).toBeLessThan(20_000_000);
    expect(text).toMatch(/dropped \d+ bytes/);
  });
});
