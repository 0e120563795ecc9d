// Issue 33 (3): workers holding results the scheduler cannot move elsewhere (Dask leaves
// them out of retire_workers' answer) are not stopped by drain, scale down, adaptive
// scale-down, apply or the rolling restart, unless forced; what stays or goes is said.
import { describe, expect, it } from 'vitest';
import type { ClusterChanges } from '../../../../src/cluster/changes/cluster-changes.js';
import { changes } from './changes-fixture.js';
import { HELD_RETRY_MS } from '../../../../src/cluster/retire-hold.js';
import { harness, startUp, type Harness } from '../harness.js';

// Issue 33 (3): the scheduler refused to retire b's worker (its 20 results had nowhere to
// go) and the drain stopped it anyway, said "1 worker(s) retired" and exited 0.
describe('drain of a worker whose results cannot move', () => {
  async function twoHosts(): Promise<Harness> {
    const h = harness({ workers: ['a', 'b'] });
    await startUp(h);
    h.scheduler.unmovable.set('b-0', 20);
    return h;
  }

  it('keeps it running, says how many results stay, and retires it once they can move', async () => {
    const h = await twoHosts();
    const c = changes(h);
    expect((await c.drain(['a'], false)).held).toEqual([]);
    expect(h.host('a').running('a-0')).toEqual([]);
    const r = await c.drain(['b'], false);
    expect(r.held).toEqual([{ name: 'b-0', results: 20 }]);
    expect(r.dropped).toEqual([]);
    expect(h.host('b').running('b-0')).toHaveLength(1);
    expect(h.state.drained.has('b')).toBe(true);
    expect(h.state.held.get('b-0')?.results).toBe(20);
    expect(
      h
        .notices()
        .some((n) => n.startsWith('b-0 on b keeps running: the scheduler could not move 20 result(s) only it holds')),
    ).toBe(true);
    // Not stopped by the next ticks; tried again after HELD_RETRY_MS, still refused.
    const calls = h.scheduler.retireCalls.length;
    await h.reconciler.tick();
    expect(h.scheduler.retireCalls.length).toBe(calls);
    await h.clock.advance(HELD_RETRY_MS + 100);
    expect(h.scheduler.retireCalls.length).toBe(calls + 1);
    expect(h.host('b').running('b-0')).toHaveLength(1);
    // The results can move now (released, or room elsewhere): the next try retires it.
    h.scheduler.unmovable.delete('b-0');
    await h.clock.advance(HELD_RETRY_MS + 100);
    expect(h.host('b').running('b-0')).toEqual([]);
    expect(h.state.held.size).toBe(0);
  });

  it('drain --force stops it and says how many results are lost; a drain again of the host tries at once', async () => {
    const h = await twoHosts();
    const c = changes(h);
    await c.drain(['a'], false);
    await c.drain(['b'], false);
    const calls = h.scheduler.retireCalls.length;
    const again = await c.drain(['b'], false);
    expect([again.unchanged, again.held]).toEqual([['b'], [{ name: 'b-0', results: 20 }]]);
    expect(h.scheduler.retireCalls.length).toBe(calls + 1);
    const forced = await c.drain(['b'], false, true);
    expect([forced.held, forced.dropped]).toEqual([[], [{ name: 'b-0', results: 20 }]]);
    expect(h.host('b').running('b-0')).toEqual([]);
    expect(h.notices()).toContain('b-0 on b: stopped as forced; 20 result(s) only it held are lost');
  });

  it('undrain of its host keeps it as it runs: wanted again, no longer held', async () => {
    const h = await twoHosts();
    const c = changes(h);
    await c.drain(['a'], false);
    await c.drain(['b'], false);
    const pid = h.state.processes.get('b-0')?.pid;
    const r = await c.drain(['b'], true);
    await h.reconciler.tick();
    expect(h.state.held.size).toBe(0);
    expect(h.state.processes.get('b-0')?.pid).toBe(pid);
    // Said as kept, not as started again (was: replaced ['b-0'], "1 worker(s) … started
    // again" and "starting 1 worker(s)", with no start).
    expect([r.replaced, r.kept]).toEqual([[], ['b-0']]);
    expect(h.notices()).toContain('undrain: b: keeping 1 held worker(s) running, wanted again');
    expect(h.host('b').running('b-0')).toHaveLength(1);
  });

  it('an undrain with room for more starts those and keeps the held one, each counted', async () => {
    const h = harness({ workers: ['a', 'b'], nworkers: 2 });
    await startUp(h);
    h.scheduler.unmovable.set('b-0', 20);
    const c = changes(h);
    expect((await c.drain(['a'], false)).short).toBe(2); // b is full
    expect((await c.drain(['b'], false)).held).toEqual([{ name: 'b-0', results: 20 }]);
    expect(h.host('b').running('b-1')).toEqual([]);
    const r = await c.drain(['b'], true);
    expect([r.replaced, r.kept]).toEqual([['b-1'], ['b-0']]);
    expect(h.notices()).toContain(
      'undrain: b: starting 1 worker(s) the drain had no room for; keeping 1 held worker(s) running, wanted again',
    );
    expect(h.host('b').running('b-1')).toHaveLength(1);
  });
});

describe('scale down, adaptive scale-down, apply and the rolling restart with results that cannot move', () => {
  it('scale down keeps the worker (held) unless forced, and the outcome says how many results', async () => {
    const h = harness({ workers: ['a', 'b'] });
    await startUp(h);
    h.scheduler.unmovable.set('b-0', 7);
    await h.reconciler.scale(1);
    expect(await h.reconciler.outcomes(['b-0'])).toEqual(new Map([['b-0', { kind: 'held', results: 7 }]]));
    expect(h.host('b').running('b-0')).toHaveLength(1);
    expect(h.state.held.get('b-0')?.results).toBe(7);
    // A user's scale again tries it at once (still refused); with --force it is stopped, its results lost.
    const calls = h.scheduler.retireCalls.length;
    await h.reconciler.scale(1, { retryHeld: true });
    expect(await h.reconciler.outcomes(['b-0'])).toEqual(new Map([['b-0', { kind: 'held', results: 7 }]]));
    expect(h.scheduler.retireCalls.length).toBe(calls + 1);
    await h.reconciler.scale(1, { retryHeld: true, force: true });
    expect(await h.reconciler.outcomes(['b-0'])).toEqual(new Map([['b-0', { kind: 'dropped', results: 7 }]]));
    expect(h.host('b').running('b-0')).toEqual([]);
    expect(h.notices()).toContain('b-0 on b: stopped as forced; 7 result(s) only it held are lost');
  });

  it('a scale with --force stops the workers it removes even when kept, and says what was dropped', async () => {
    const h = harness({ workers: ['a', 'b'] });
    await startUp(h);
    h.scheduler.unmovable.set('b-0', 3);
    await h.reconciler.scale(1, { force: true });
    expect(await h.reconciler.outcomes(['b-0'])).toEqual(new Map([['b-0', { kind: 'dropped', results: 3 }]]));
    expect(h.host('b').running('b-0')).toEqual([]);
    expect(h.notices()).toContain('b-0 on b: stopped as forced; 3 result(s) only it held are lost');
  });

  it("adaptive's retire (reconciler.retire) keeps a worker whose results cannot move", async () => {
    const h = harness({ workers: ['a', 'b'] });
    await startUp(h);
    h.scheduler.unmovable.set('a-0', 5);
    await h.reconciler.retire(['a-0']);
    expect(await h.reconciler.outcomes(['a-0'])).toEqual(new Map([['a-0', { kind: 'held', results: 5 }]]));
    expect(h.host('a').running('a-0')).toHaveLength(1);
    expect(h.state.held.get('a-0')).toMatchObject({ results: 5 });
  });

  it('apply removing a host keeps its held worker and the host (not left), and says so', async () => {
    const h = harness({ workers: ['a', 'b'] });
    await startUp(h);
    h.scheduler.unmovable.set('b-0', 20);
    const next = { ...h.state.spec, workerHosts: [h.state.spec.workerHosts[0]!] };
    let reply: Awaited<ReturnType<ClusterChanges['apply']>> | undefined;
    const p = changes(h)
      .apply(next, { maxUnavailable: 1, timeoutMs: 30_000 })
      .then((r) => (reply = r));
    for (let i = 0; i < 400 && !reply; i++) await h.clock.advance(500);
    await p;
    expect(reply?.held).toEqual([{ name: 'b-0', results: 20 }]);
    expect(h.host('b').running('b-0')).toHaveLength(1);
    expect(h.host('b').closed).toBe(false);
    expect(h.notices()).not.toContain('b left the cluster');
    // Once its results can move, the retry retires it and the host is left.
    h.scheduler.unmovable.delete('b-0');
    await h.clock.advance(HELD_RETRY_MS + 1000);
    expect(h.host('b').running('b-0')).toEqual([]);
    expect(h.notices()).toContain('b left the cluster');
  });

  it('apply --force drops them and says how many', async () => {
    const h = harness({ workers: ['a', 'b'] });
    await startUp(h);
    h.scheduler.unmovable.set('b-0', 20);
    const next = { ...h.state.spec, workerHosts: [h.state.spec.workerHosts[0]!] };
    let reply: Awaited<ReturnType<ClusterChanges['apply']>> | undefined;
    const p = changes(h)
      .apply(next, { maxUnavailable: 1, timeoutMs: 30_000, force: true })
      .then((r) => (reply = r));
    for (let i = 0; i < 400 && !reply; i++) await h.clock.advance(500);
    await p;
    expect([reply?.held, reply?.dropped]).toEqual([undefined, [{ name: 'b-0', results: 20 }]]);
    expect(h.notices()).toContain('b left the cluster');
  });

  it('a rolling restart stops at a worker whose results cannot move and leaves it running; --force restarts it', async () => {
    const h = harness({ workers: ['a', 'b'] });
    await startUp(h);
    h.onConnect = undefined;
    // Both at once: each one's results have no other running worker to go to.
    h.scheduler.unmovable.set('a-0', 4).set('b-0', 6);
    const pids = ['a-0', 'b-0'].map((n) => h.state.processes.get(n)?.pid);
    const r = await changes(h).restart(['a-0', 'b-0'], { maxUnavailable: 2, timeoutMs: 30_000 });
    expect(r).toMatchObject({
      kind: 'stopped',
      restarted: [],
      failed: 'a-0',
      held: [
        { name: 'a-0', results: 4 },
        { name: 'b-0', results: 6 },
      ],
    });
    expect(r.kind === 'stopped' && r.reason).toBe(
      'the scheduler could not move 10 result(s) only a-0, b-0 hold (no other running worker to take them); not restarted, still running (--force restarts and loses them)',
    );
    expect(['a-0', 'b-0'].map((n) => h.state.processes.get(n)?.pid)).toEqual(pids);
    expect(h.state.held.size).toBe(0);
    // --force: restarted, the results said lost.
    for (const n of ['a-0', 'b-0']) h.scheduler.registered.delete(n);
    let forced: Awaited<ReturnType<ClusterChanges['restart']>> | undefined;
    const p = changes(h)
      .restart(['a-0'], { maxUnavailable: 1, timeoutMs: 30_000, force: true })
      .then((x) => (forced = x));
    for (let i = 0; i < 20 && !forced; i++) {
      await h.clock.advance(500);
      for (const w of h.state.alive('worker')) h.scheduler.registered.add(w.desired.name);
    }
    await p;
    expect(forced).toMatchObject({ kind: 'done', restarted: ['a-0'], dropped: [{ name: 'a-0', results: 4 }] });
  });
});
