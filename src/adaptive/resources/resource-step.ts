// One adaptive step with resources: the policy's decision (Dask's target, resource-blind)
// turned into which hosts get new workers and which workers may go, from the pending
// restricted work the scheduler reports. Pure; the adaptive loop applies the result.
// Up, or the same size: placeByResource fills restricted demand first (only on hosts that
// can run it), then plain demand up to the policy's target (plain hosts first). Dask's
// target counts restricted tasks too, so the restricted workers that cannot be placed
// anywhere come off it: GPU work with no GPU host starts no CPU worker. What comes off is
// what they can have added (unplaceableInTarget), and never the one worker plain work
// waiting for any worker needs. Down: the policy's candidates, minus the last workers
// able to run pending restricted work.
import type { AdaptiveDecision } from '../policy.js';
import { workersWanted, type PendingGroup, type WorkerShape } from '../../cluster/placement/demand.js';
import { resourceLabel } from '../../cluster/placement/resource-amounts.js';
import { placeByResource, type GroupBound, type ResourceHost, type UnmetDemand } from './resource-placement.js';
import { protectResources, type PlanWorker } from './protect-resources.js';

export interface ResourceStepInput {
  decision: AdaptiveDecision;
  /** Workers in the plan now, with their hosts. */
  workers: readonly PlanWorker[];
  /** Every worker host, with its workers now and why nothing new may go there. */
  hosts: readonly (ResourceHost & WorkerShape)[];
  groups: readonly PendingGroup[];
  /** Tasks without restrictions waiting for any worker (the preload's plain_pending). */
  plainPending: number;
  /** Whether the scheduler's target counts unrunnable tasks (adaptive/target.ts, countsUnrunnable). */
  countsUnrunnable: boolean;
  targetDurationS: number;
  maximum: number;
  bounds?: readonly GroupBound[];
}

export interface ResourceStep {
  /** New workers per host. */
  add: { host: string; count: number }[];
  /** Workers to retire (the policy's candidates that may go). */
  retire: string[];
  /** Candidates kept, with why. */
  kept: { name: string; reason: string }[];
  unmet: UnmetDemand[];
}

export function resourceStep(i: ResourceStepInput): ResourceStep {
  const wanted = workersWanted(i.groups, i.hosts, i.targetDurationS);
  if (i.decision.status === 'down') {
    const r = protectResources({
      candidates: i.decision.workers,
      workers: i.workers,
      hosts: i.hosts,
      wanted,
      groups: i.bounds,
    });
    return { add: [], retire: r.retire, kept: r.kept, unmet: [] };
  }
  const target = i.decision.status === 'up' ? i.decision.n : i.workers.length;
  const place = (t: number) =>
    placeByResource({ target: t, wanted, hosts: i.hosts, maximum: i.maximum, groups: i.bounds });
  const first = place(target);
  const restrictedUnmet = first.unmet.filter((u) => u.what !== 'plain');
  const unplaceable = restrictedUnmet
    .filter((u) => !u.what.startsWith('group '))
    .reduce((n, u) => n + (u.want - u.placeable), 0);
  if (unplaceable === 0) return { add: first.add, retire: [], kept: [], unmet: first.unmet };
  const plain = Math.min(target, i.plainPending > 0 ? 1 : 0);
  const p = place(Math.max(i.workers.length, plain, target - unplaceableInTarget(i, restrictedUnmet)));
  return {
    add: p.add,
    retire: [],
    kept: [],
    unmet: [...restrictedUnmet, ...p.unmet.filter((u) => u.what === 'plain')],
  };
}

/**
 * Workers of Dask's target that unplaceable restricted work can account for. Tasks
 * assigned to a worker able to run them (waiting there) are in its occupancy on every
 * version, so all of their shortfall while no plain task waits: GPU work beyond the GPU
 * hosts' room starts no CPU worker. With plain tasks waiting, their share of the target
 * is not known apart (Dask's number is one sum, clipped), so it is left to them.
 * Unrunnable ones (no able worker) a scheduler from distributed 2023.8 counts too; an
 * older one only as the "at least 1" it answers when it has no workers and something is
 * unrunnable.
 */
function unplaceableInTarget(i: ResourceStepInput, unmet: readonly UnmetDemand[]): number {
  let n = 0;
  let unrunnable = false;
  for (const u of unmet) {
    if (u.what.startsWith('group ')) continue;
    const g = i.groups.find((x) => resourceLabel(x.resources) === u.what);
    const assigned = g !== undefined && g.waiting + g.running > 0;
    if (i.countsUnrunnable || (assigned && i.plainPending === 0)) n += u.want - u.placeable;
    else if (!assigned) unrunnable = true;
  }
  return unrunnable && i.workers.length === 0 ? Math.max(n, 1) : n;
}
