// apply when the scheduler's host is also a worker host (listed twice in the host file):
// dropping its workers must not make it leave the cluster (a leave stops everything of
// ours there, the scheduler too), and adding workers there must not connect it again.
import { describe, expect, it } from 'vitest';
import { changes } from './changes-fixture.js';
import type { ClusterSpec } from '../../../../src/config/spec.js';
import { testHost } from '../../config/spec-fixture.js';
import { flush, harness, startUp, type Harness } from '../harness.js';

/** Runs an apply to its end, moving the fake clock on while it waits for hosts to empty. */
async function applied(h: Harness, next: ClusterSpec, over: Parameters<typeof changes>[1] = {}): Promise<void> {
  let done = false;
  const p = changes(h, over)
    .apply(next, { maxUnavailable: 1, timeoutMs: 30_000 })
    .finally(() => (done = true));
  for (let i = 0; i < 400 && !done; i++) await h.clock.advance(500);
  await p;
}

const schedulerRunning = (h: Harness) =>
  h
    .host('n0')
    .running()
    .filter((p) => p.spec.role === 'scheduler').length;

describe('apply with the scheduler host as a worker host', () => {
  it("drops the scheduler host's workers and keeps the host, its connection and its scheduler", async () => {
    const h = harness({ workers: ['n0', 'a'] });
    await startUp(h);
    const conn = h.host('n0');
    expect(
      conn
        .running()
        .map((p) => p.spec.name)
        .sort(),
    ).toEqual(['n0-0', 'scheduler']);
    await applied(h, { ...h.state.spec, workerHosts: [h.state.spec.workerHosts[1]!] });
    expect(
      h
        .host('n0')
        .running()
        .map((p) => p.spec.name),
    ).toEqual(['scheduler']);
    expect(schedulerRunning(h)).toBe(1);
    expect(conn.closed).toBe(false);
    expect(h.state.runners.get('n0')).toBe(conn);
    expect(h.notices()).not.toContain('n0 left the cluster');
    // Said as what happened: the host stays (helper-23 read "1 removed").
    expect(h.notices()).toContain(
      "apply: 0 host(s) added, 0 removed, the scheduler's host runs no workers now, 0 with a changed launch",
    );
  });

  it('starts workers on the scheduler host over its connection, without connecting it again', async () => {
    const h = harness({ workers: ['a'] });
    await startUp(h);
    const conn = h.host('n0');
    await applied(h, { ...h.state.spec, workerHosts: [testHost('n0', 1), ...h.state.spec.workerHosts] });
    expect(h.host('n0')).toBe(conn);
    expect(
      conn
        .running()
        .map((p) => p.spec.name)
        .sort(),
    ).toEqual(['n0-0', 'scheduler']);
    expect(h.notices()).toContain(
      "apply: 0 host(s) added, 0 removed, the scheduler's host runs workers too, 0 with a changed launch",
    );
  });
});

// helper-26's trial: both were "applied" and nothing changed.
describe('apply of what no running worker shows', () => {
  it('takes a changed launch on a host with no worker now: the next worker there starts with it', async () => {
    const h = harness({ workers: ['a', 'b'], initialWorkers: 1 });
    await startUp(h);
    const next = structuredClone(h.state.spec);
    (next.workerHosts[1]!.workerOptions as { resources: Record<string, number> }).resources = { GPU: 1 };
    await applied(h, next);
    expect(h.state.spec.workerHosts[1]!.workerOptions.resources).toEqual({ GPU: 1 });
  });

  it("turns adaptive on with the file's settings when it is off, as up of that file does", async () => {
    const h = harness({ workers: ['a'] });
    await startUp(h);
    const started: unknown[] = [];
    const to = { minimum: 0, maximum: 2, intervalMs: 1000, waitCount: 3, targetDurationMs: 5000 };
    await applied(h, { ...h.state.spec, adaptive: to }, { startAdaptive: (spec) => void started.push(spec) });
    expect(started).toEqual([to]);
  });
});

describe('apply removing a host that does not answer', () => {
  it('does not say it left: its worker could not be retired, and down still checks it', async () => {
    // Found by the h40ssh trial: apply said "left the cluster" of a host whose worker ran on,
    // registered with the scheduler.
    const h = harness({ workers: ['a', 'b'] });
    await startUp(h);
    h.refuse.set('b', 'no route');
    h.host('b').drop();
    await flush();
    await applied(h, { ...h.state.spec, workerHosts: [h.state.spec.workerHosts[0]!] });
    expect(h.notices()).not.toContain('b left the cluster');
    expect(h.notices()).toContain(
      'b removed from the cluster, but it does not answer: what runs there was not stopped (`sshcluster down` checks it)',
    );
    expect(h.state.formerHosts.map((x) => x.name)).toEqual(['b']);
  });
});
