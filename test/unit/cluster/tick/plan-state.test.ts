// planState(state) is plan(desired, observed, unusable) without building its inputs:
// the same actions, in the same order, over states the reconciler meets.
import { describe, expect, it } from 'vitest';
import { plan } from '../../../../src/cluster/plan-actions.js';
import { planState } from '../../../../src/cluster/tick/plan-state.js';
import { flush, harness, startUp, type Harness } from '../harness.js';

const byPlan = (h: Harness) => plan([...h.state.desired()], h.state.observed(), h.state.unusable());

describe('planState', () => {
  it('gives what plan() gives before start-up, after it, and as processes exit, stop and hosts go', async () => {
    const h = harness({ workers: ['a', 'b', 'c', 'd'], nworkers: 2 });
    await Promise.all(h.state.hosts().map((x) => h.reconciler.links.connect(x.name)));
    expect(planState(h.state)).toEqual(byPlan(h));
    expect(planState(h.state).length).toBe(9);
    await startUp(h);
    expect(planState(h.state)).toEqual([]);
    expect(byPlan(h)).toEqual([]);
    h.host('a').running('a-1')[0]!.die(); // exited: started again
    h.host('b').drop(); // unusable host: its workers are not started
    await flush();
    h.state.desiredWorkers = h.state.desiredWorkers.filter((w) => w.name !== 'c-0' && w.name !== 'd-1'); // stopped
    h.state.processes.get('d-1')!.stopping = true; // on its way out: not stopped twice
    const got = planState(h.state);
    expect(got).toEqual(byPlan(h));
    expect(got.map((a) => (a.kind === 'start' ? `start ${a.process.name}` : `stop ${a.name}`))).toEqual([
      'start a-1',
      'stop c-0',
    ]);
  });
});
