// What the controller keeps for each tracked process is allocated when first needed (a
// tail at the first line, a failure list at the first failure), shared and frozen until
// then: at 40,000 workers each byte a worker is 40 kB. These hold the behaviour to what
// it was when each process had its own from the start.
import { describe, expect, it } from 'vitest';
import { NO_LINES, TAIL_LINES } from '../../../../src/cluster/cluster-state.js';
import { RestartSupervisor } from '../../../../src/cluster/tick/supervisor.js';
import { harness, startUp } from '../harness.js';

describe('lean tracking: a tracked process', () => {
  it('has no tail of its own until its first line, then keeps its last TAIL_LINES lines', async () => {
    const h = harness({ workers: ['a', 'b'] });
    await startUp(h);
    const a = h.state.processes.get('a-0')!;
    const b = h.state.processes.get('b-0')!;
    expect(a.tail).toBe(NO_LINES);
    expect(Object.isFrozen(a.tail)).toBe(true);
    const p = h.host('a').running()[0]!;
    p.line('first');
    expect(a.tail).toEqual(['first']);
    expect(a.tail).not.toBe(NO_LINES);
    for (let i = 1; i <= TAIL_LINES + 5; i++) p.line(`line ${i}`);
    expect(a.tail).toHaveLength(TAIL_LINES);
    expect(a.tail[0]).toBe('line 6');
    expect(a.tail.at(-1)).toBe(`line ${TAIL_LINES + 5}`);
    // the other process's tail is untouched, and so is the shared empty one
    expect(b.tail).toEqual([]);
    expect(NO_LINES).toEqual([]);
    h.host('b').running()[0]!.line('only b');
    expect(b.tail).toEqual(['only b']);
    expect(a.tail).not.toContain('only b');
  });

  it('still records its PID, its first exception line and its exit', async () => {
    const h = harness({ workers: ['a'] });
    await startUp(h);
    const t = h.state.processes.get('a-0')!;
    const p = h.host('a').running()[0]!;
    expect(t.pid).toBe(p.remotePid);
    p.line('ValueError: bad');
    p.line('KeyError: worse');
    expect(t.firstError).toBe('ValueError: bad');
    p.die(3);
    await h.clock.advance(0);
    expect(t.exit).toEqual({ code: 3, signal: null });
  });
});

describe('lean tracking: the desired list', () => {
  it("after a scale, names a kept worker by its tracked process's entry, a new one by its own", async () => {
    const h = harness({ workers: ['a', 'b'], nworkers: 2, initialWorkers: 2 });
    await startUp(h);
    const before = h.state.processes.get('a-0')!.desired;
    await h.reconciler.scale(4);
    await h.reconciler.tick();
    const list = h.state.desired();
    expect(list.map((d) => `${d.role}:${d.name}@${d.host}`)).toEqual([
      'scheduler:scheduler@n0',
      'worker:a-0@a',
      'worker:b-0@b',
      'worker:a-1@a',
      'worker:b-1@b',
    ]);
    expect(list.find((d) => d.name === 'a-0')).toBe(before);
    expect(h.state.processes.get('a-1')!.desired).toEqual({ name: 'a-1', host: 'a', role: 'worker' });
    // the list made at the next scale names every tracked worker by its own entry
    await h.reconciler.scale(3);
    const next = h.state.desired();
    for (const d of next.filter((x) => x.role === 'worker')) expect(d).toBe(h.state.processes.get(d.name)!.desired);
  });
});

describe('lean tracking: the restart supervisor', () => {
  it('keeps each name its own failures, from none, and forgets them at reset', () => {
    const s = new RestartSupervisor({ ...s0(), crashLoopCount: 3 });
    for (const n of ['a', 'b']) s.recordStart(n, 0);
    expect(s.recordExit('a', 1, false).kind).toBe('restart');
    expect(s.recordExit('a', 2, false).kind).toBe('restart');
    expect(s.recordExit('b', 3, false).kind).toBe('restart');
    expect(s.recordExit('a', 4, false)).toEqual({ kind: 'crash-looping', failures: 3, windowMs: 300_000 });
    expect(s.status('b').state).toBe('restarting');
    s.reset('a');
    s.recordStart('a', 5);
    expect(s.recordExit('a', 6, false)).toEqual({ kind: 'restart', at: 1006, attempt: 1 });
    expect(s.recordExit('b', 7, false).kind).toBe('restart');
    expect(s.recordExit('b', 8, false).kind).toBe('crash-looping');
  });
});

function s0() {
  return { baseMs: 1000, factor: 2, maxMs: 60_000, crashLoopCount: 5, windowMs: 300_000, stableMs: 60_000 };
}
