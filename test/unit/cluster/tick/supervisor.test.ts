import { describe, expect, it } from 'vitest';
import { DEFAULT_RESTART_POLICY, RestartSupervisor, backoffDelay } from '../../../../src/cluster/tick/supervisor.js';

describe('backoffDelay', () => {
  it('doubles from 1 s and stops at 60 s', () => {
    const ks = [1, 2, 3, 4, 5, 6, 7, 8];
    expect(ks.map((k) => backoffDelay(DEFAULT_RESTART_POLICY, k))).toEqual([
      1000, 2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000,
    ]);
  });
});

describe('RestartSupervisor', () => {
  it('has the documented defaults', () => {
    expect(DEFAULT_RESTART_POLICY).toEqual({
      baseMs: 1000,
      factor: 2,
      maxMs: 60_000,
      crashLoopCount: 5,
      windowMs: 300_000,
      stableMs: 60_000,
    });
  });

  it('reports an unknown process as stopped and startable', () => {
    const s = new RestartSupervisor();
    expect(s.status('w')).toEqual({ state: 'stopped', restarts: 0, consecutiveFailures: 0 });
    expect(s.canStartAt('w')).toBe(0);
    expect(s.mayStart('w', 0)).toBe(true);
  });

  it('needs no restart after an expected exit', () => {
    const s = new RestartSupervisor();
    s.recordStart('w', 0);
    expect(s.recordExit('w', 500, true)).toEqual({ kind: 'none' });
    expect(s.status('w')).toEqual({ state: 'stopped', restarts: 0, consecutiveFailures: 0, lastExitAt: 500 });
    expect(s.canStartAt('w')).toBe(0);
    expect(s.dueForRestart(10_000)).toEqual([]);
  });

  it('backs off 1, 2, 4, 8 … 60 s over consecutive quick failures (crash loop off)', () => {
    const s = new RestartSupervisor({ ...DEFAULT_RESTART_POLICY, crashLoopCount: 100 });
    const delays: number[] = [];
    let now = 0;
    for (let attempt = 1; attempt <= 8; attempt++) {
      s.recordStart('w', now);
      now += 100; // dies 100 ms after each start
      const d = s.recordExit('w', now, false);
      expect(d.kind).toBe('restart');
      if (d.kind !== 'restart') return;
      expect(d.attempt).toBe(attempt);
      delays.push(d.at - now);
      now = d.at;
    }
    expect(delays).toEqual([1000, 2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000]);
    expect(s.status('w').restarts).toBe(7);
  });

  it('gates starts until the back-off time, and lists the process as due then', () => {
    const s = new RestartSupervisor();
    s.recordStart('w', 0);
    s.recordStart('v', 0);
    expect(s.recordExit('w', 1000, false)).toEqual({ kind: 'restart', at: 2000, attempt: 1 });
    expect(s.status('w')).toEqual({
      state: 'restarting',
      restarts: 0,
      consecutiveFailures: 1,
      lastExitAt: 1000,
      nextStartAt: 2000,
    });
    expect(s.canStartAt('w')).toBe(2000);
    expect(s.mayStart('w', 1999)).toBe(false);
    expect(s.dueForRestart(1999)).toEqual([]);
    expect(s.mayStart('w', 2000)).toBe(true);
    expect(s.dueForRestart(2000)).toEqual(['w']);
    s.recordStart('w', 2100);
    expect(s.status('w')).toEqual({ state: 'running', restarts: 1, consecutiveFailures: 1, lastExitAt: 1000 });
    expect(s.dueForRestart(5000)).toEqual([]);
  });

  it('resets the back-off after a run of at least stableMs', () => {
    const s = new RestartSupervisor();
    s.recordStart('w', 0);
    expect(s.recordExit('w', 10, false)).toEqual({ kind: 'restart', at: 1010, attempt: 1 });
    s.recordStart('w', 1010);
    expect(s.recordExit('w', 1020, false)).toEqual({ kind: 'restart', at: 3020, attempt: 2 });
    s.recordStart('w', 3020);
    // ran 60 000 ms exactly: stable, back to 1 s
    expect(s.recordExit('w', 63_020, false)).toEqual({ kind: 'restart', at: 64_020, attempt: 1 });
  });

  it('keeps climbing after a run just short of stableMs', () => {
    const s = new RestartSupervisor();
    s.recordStart('w', 0);
    expect(s.recordExit('w', 10, false)).toEqual({ kind: 'restart', at: 1010, attempt: 1 });
    s.recordStart('w', 1010);
    expect(s.recordExit('w', 61_009, false)).toEqual({ kind: 'restart', at: 63_009, attempt: 2 });
  });

  it('declares a crash loop at the 5th failure within 5 minutes and stops restarting', () => {
    const s = new RestartSupervisor();
    // failures at 100, 1200, 3300, 7400; each restart at its back-off time
    let now = 0;
    for (const expected of [1000, 2000, 4000, 8000]) {
      s.recordStart('w', now);
      now += 100;
      const d = s.recordExit('w', now, false);
      expect(d).toMatchObject({ kind: 'restart', at: now + expected });
      now += expected;
    }
    s.recordStart('w', now); // 15 400
    expect(s.recordExit('w', 15_500, false)).toEqual({ kind: 'crash-looping', failures: 5, windowMs: 300_000 });
    expect(s.status('w')).toEqual({ state: 'crash-looping', restarts: 4, consecutiveFailures: 5, lastExitAt: 15_500 });
    expect(s.canStartAt('w')).toBeNull();
    expect(s.mayStart('w', 1e12)).toBe(false);
    expect(s.dueForRestart(1e12)).toEqual([]);
  });

  it('does not call 5 failures spread over more than the window a crash loop', () => {
    const s = new RestartSupervisor();
    // runs of 80 s (stable: 1 s delay each); failures at 80, 161, 242, 323, 404 s
    const runs: Array<[number, number]> = [
      [0, 80_000],
      [81_000, 161_000],
      [162_000, 242_000],
      [243_000, 323_000],
      [324_000, 404_000],
    ];
    const decisions = runs.map(([start, exit]) => {
      s.recordStart('w', start);
      return s.recordExit('w', exit, false);
    });
    // at 404 s the failure at 80 s has left the window: 4 inside
    expect(decisions).toEqual(runs.map(([, exit]) => ({ kind: 'restart', at: exit + 1000, attempt: 1 })));
    // a quick 6th failure makes 5 inside (161 … 405.5 s)
    s.recordStart('w', 405_000);
    expect(s.recordExit('w', 405_500, false)).toEqual({ kind: 'crash-looping', failures: 5, windowMs: 300_000 });
  });

  it('keeps climbing the back-off while old failures leave the window', () => {
    const s = new RestartSupervisor();
    // quick deaths, but the caller restarted late (say the host was unreachable)
    const runs: Array<[number, number]> = [
      [0, 100],
      [100_000, 100_100],
      [200_000, 200_100],
      [250_000, 250_100],
      [300_100, 300_200],
    ];
    const decisions = runs.map(([start, exit]) => {
      s.recordStart('w', start);
      return s.recordExit('w', exit, false);
    });
    expect(decisions.map((d) => d.kind)).toEqual(['restart', 'restart', 'restart', 'restart', 'restart']);
    expect(decisions[4]).toEqual({ kind: 'restart', at: 300_200 + 16_000, attempt: 5 });
  });

  it('counts a failure exactly windowMs old as outside the window', () => {
    const s = new RestartSupervisor({ ...DEFAULT_RESTART_POLICY, crashLoopCount: 2, windowMs: 1000 });
    s.recordStart('w', 0);
    expect(s.recordExit('w', 0, false).kind).toBe('restart');
    s.recordStart('w', 999);
    expect(s.recordExit('w', 1000, false).kind).toBe('restart');
    s.recordStart('w', 1500);
    expect(s.recordExit('w', 1999, false)).toEqual({ kind: 'crash-looping', failures: 2, windowMs: 1000 });
  });

  it('still calls a process that dies every minute and a bit crash-looping (stable resets the delay only)', () => {
    const s = new RestartSupervisor();
    let now = 0;
    const kinds: string[] = [];
    for (let i = 0; i < 5; i++) {
      s.recordStart('w', now);
      now += 61_000; // stable each time
      const d = s.recordExit('w', now, false);
      kinds.push(d.kind === 'restart' ? `restart+${d.at - now}` : d.kind);
      now += 1000;
    }
    // failures at 61, 123, 185, 247, 309 s: all five inside 300 s of the last
    expect(kinds).toEqual(['restart+1000', 'restart+1000', 'restart+1000', 'restart+1000', 'crash-looping']);
  });

  it('restarts automatically again after reset, from the base delay', () => {
    const s = new RestartSupervisor({ ...DEFAULT_RESTART_POLICY, crashLoopCount: 2 });
    s.recordStart('w', 0);
    s.recordExit('w', 10, false);
    s.recordStart('w', 1010);
    expect(s.recordExit('w', 1020, false).kind).toBe('crash-looping');
    s.reset('w');
    expect(s.status('w')).toEqual({ state: 'stopped', restarts: 1, consecutiveFailures: 0, lastExitAt: 1020 });
    expect(s.canStartAt('w')).toBe(0);
    s.recordStart('w', 5000);
    expect(s.status('w').restarts).toBe(1); // a start after reset is not an automatic restart
    expect(s.recordExit('w', 5010, false)).toEqual({ kind: 'restart', at: 6010, attempt: 1 });
  });

  it('counts a manual start of a crash-looping process as running', () => {
    const s = new RestartSupervisor({ ...DEFAULT_RESTART_POLICY, crashLoopCount: 1 });
    s.recordStart('w', 0);
    expect(s.recordExit('w', 10, false).kind).toBe('crash-looping');
    s.recordStart('w', 20);
    expect(s.status('w')).toEqual({ state: 'running', restarts: 1, consecutiveFailures: 1, lastExitAt: 10 });
  });

  it('treats an exit with no recorded start as an unstable failure', () => {
    const s = new RestartSupervisor();
    expect(s.recordExit('w', 100_000, false)).toEqual({ kind: 'restart', at: 101_000, attempt: 1 });
    expect(s.recordExit('w', 200_000, false)).toEqual({ kind: 'restart', at: 202_000, attempt: 2 });
  });

  it('keeps processes apart and forgets one', () => {
    const s = new RestartSupervisor();
    s.recordStart('a', 0);
    s.recordStart('b', 0);
    s.recordExit('a', 10, false);
    s.recordExit('a', 20, false);
    expect(s.recordExit('b', 30, false)).toEqual({ kind: 'restart', at: 1030, attempt: 1 });
    expect(s.dueForRestart(1030)).toEqual(['b']);
    expect(s.dueForRestart(2020)).toEqual(['a', 'b']);
    s.forget('a');
    expect(s.status('a')).toEqual({ state: 'stopped', restarts: 0, consecutiveFailures: 0 });
    expect(s.dueForRestart(2020)).toEqual(['b']);
  });
});
