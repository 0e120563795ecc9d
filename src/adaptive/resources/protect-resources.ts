// The scale-down rule with resources: the adaptive policy picks workers to retire in
// Dask's order (not arrived first, then the scheduler's workers_to_close); this keeps
// back any that is the last worker able to run restricted work still pending, and any
// that would take a group below its minimum. Everything else keeps Dask's order.
import type { WantedGroup } from '../../cluster/placement/demand.js';
import type { GroupBound } from './resource-placement.js';
import { resourceLabel, satisfies, type Resources } from '../../cluster/placement/resource-amounts.js';

export interface PlanWorker {
  name: string;
  host: string;
}

export interface ScaleDownInput {
  /** The policy's choice, best first. */
  candidates: readonly string[];
  /** Every worker in the plan. */
  workers: readonly PlanWorker[];
  hosts: readonly { name: string; resources: Resources }[];
  /** Restricted demand; a set with unfinished tasks protects its last able worker. */
  wanted: readonly WantedGroup[];
  groups?: readonly GroupBound[];
}

export interface ScaleDownResult {
  retire: string[];
  kept: { name: string; reason: string }[];
}

interface Guard {
  left: number;
  covers: (w: PlanWorker) => boolean;
  /** Retiring a covered worker is refused while `left` is at most this. */
  floor: number;
  reason: string;
}

export function protectResources(input: ScaleDownInput): ScaleDownResult {
  const declared = new Map(input.hosts.map((h) => [h.name, h.resources]));
  const guards: Guard[] = [
    ...input.wanted
      .filter((g) => g.tasks > 0)
      .map((g): Guard => {
        const covers = (w: PlanWorker): boolean => satisfies(declared.get(w.host) ?? {}, g.resources);
        const tasks = `${g.tasks} task${g.tasks === 1 ? '' : 's'}`;
        return {
          covers,
          left: 0,
          floor: 1,
          reason: `last worker able to run ${resourceLabel(g.resources)} (${tasks} pending)`,
        };
      }),
    ...(input.groups ?? []).map((b): Guard => ({
      covers: (w) => b.hosts.includes(w.host),
      left: 0,
      floor: b.minimum,
      reason: `group ${b.name} minimum ${b.minimum}`,
    })),
  ];
  const byName = new Map(input.workers.map((w) => [w.name, w]));
  for (const w of byName.values()) for (const g of guards) if (g.covers(w)) g.left += 1;

  const out: ScaleDownResult = { retire: [], kept: [] };
  for (const name of new Set(input.candidates)) {
    const w = byName.get(name) ?? { name, host: '' };
    const stop = guards.find((g) => g.covers(w) && g.left <= g.floor);
    if (stop) {
      out.kept.push({ name, reason: stop.reason });
      continue;
    }
    for (const g of guards) if (g.covers(w)) g.left -= 1;
    out.retire.push(name);
  }
  return out;
}
