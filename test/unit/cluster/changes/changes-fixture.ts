// ClusterChanges wired over a cluster harness (fake hosts, scheduler and clock), for the
// tests of apply, drain, scale and the roll.
import { ClusterChanges } from '../../../../src/cluster/changes/cluster-changes.js';
import type { Harness } from '../harness.js';

export function changes(
  h: Harness,
  over: Partial<ConstructorParameters<typeof ClusterChanges>[0]> = {},
): ClusterChanges {
  return new ClusterChanges({
    state: h.state,
    clock: h.clock,
    signal: h.life.signal,
    emit: (e) => h.events.push(e),
    tick: () => h.reconciler.tick(),
    restartWorker: (n, o) => h.reconciler.restartWorker(n, o),
    outcomes: (names) => h.reconciler.outcomes(names),
    connect: (x) => h.reconciler.links.connect(x),
    leave: (x) => h.reconciler.links.leave(x),
    adaptive: () => undefined,
    startAdaptive: () => undefined,
    ...over,
  });
}
