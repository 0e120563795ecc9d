// A Reconciler wired over the fakes of cluster-fakes.ts: a scheduler host n0 and worker
// hosts, connections that can be refused or dropped, events collected.
import { ClusterState } from '../../../src/cluster/cluster-state.js';
import type { DesiredProcess } from '../../../src/cluster/plan-actions.js';
import type { ProcessSpec } from '../../../src/cluster/ports.js';
import { Reconciler } from '../../../src/cluster/tick/reconciler.js';
import type { HostSpec } from '../../../src/config/spec.js';
import type { ClusterEvent } from '../../../src/events/types.js';
import { FakeClock, FakeHost, FakeScheduler } from './fakes.js';
import { testSpec } from '../config/spec-fixture.js';

export { flush } from './fakes.js';

export interface Harness {
  clock: FakeClock;
  state: ClusterState;
  reconciler: Reconciler;
  hosts: Map<string, FakeHost>;
  scheduler: FakeScheduler;
  events: ClusterEvent[];
  life: AbortController;
  /** Hosts refusing connections (name → error). */
  refuse: Map<string, string>;
  /** Called with each new connection before the controller uses it. */
  onConnect?: (host: FakeHost) => void;
  host(name: string): FakeHost;
  notices(): string[];
}

/** A cluster of scheduler host n0 and worker hosts `workers`, with `nworkers` each. */
export function harness(o: {
  workers: string[];
  nworkers?: number;
  initialWorkers?: number;
  withScheduler?: boolean;
}): Harness {
  const clock = new FakeClock();
  const spec = testSpec({ workers: o.workers, nworkers: o.nworkers });
  const state = new ClusterState(spec, o.initialWorkers);
  const hosts = new Map<string, FakeHost>();
  const refuse = new Map<string, string>();
  const scheduler = new FakeScheduler();
  const events: ClusterEvent[] = [];
  const life = new AbortController();
  const connect = async (h: HostSpec) => {
    const why = refuse.get(h.name);
    if (why) throw new Error(why);
    const host = new FakeHost(h.name);
    // What ran on the host before (a dropped connection) stays there.
    const old = hosts.get(h.name);
    if (old) for (const [pid, p] of old.remote) host.remote.set(pid, p);
    hosts.set(h.name, host);
    out.onConnect?.(host);
    return host;
  };
  const specFor = (d: DesiredProcess): ProcessSpec => ({ ...d, argv: ['python3'], env: {} });
  const reconciler = new Reconciler({
    state,
    clock,
    emit: (e) => events.push(e),
    connect,
    specFor,
    scheduler: () => (o.withScheduler === false ? undefined : scheduler),
    signal: life.signal,
  });
  const out: Harness = {
    clock,
    state,
    reconciler,
    hosts,
    scheduler,
    events,
    life,
    refuse,
    host: (name) => hosts.get(name)!,
    notices: () => events.flatMap((e) => (e.kind === 'notice' ? [e.message] : [])),
  };
  return out;
}

/**
 * Connects every host, runs the first tick (and its follow-ups, over TICK_STARTS starts:
 * due at once, no time passes), registers the workers and ends start-up.
 */
export async function startUp(h: Harness): Promise<void> {
  await Promise.all(h.state.hosts().map((x) => h.reconciler.links.connect(x.name)));
  await h.reconciler.tick();
  await h.clock.advance(0);
  for (const w of h.state.desiredWorkers) if (h.state.processes.has(w.name)) h.scheduler.registered.add(w.name);
  await h.reconciler.tick();
  h.reconciler.startupDone();
}
