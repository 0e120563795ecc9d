// Which workers a down recommendation names, in AdaptiveCore's order
// (deploy/adaptive_core.py:191-199): workers not yet arrived first — they cost nothing
// to drop — then the scheduler's choice from workers_to_close (idle, least data first).

export interface AdaptiveWorker {
  name: string;
  /** Checked in with the scheduler (AdaptiveCore's `observed`). */
  registered: boolean;
  /** Launched, not registered yet (in `requested`, not in `observed`). */
  starting: boolean;
  nthreads: number;
  memoryBytes: number;
  /** Has tasks processing; never picked by the policy. Unknown = not busy. */
  busy?: boolean;
}

/**
 * A group minimum over the plan's workers: while at most `minimum` of its `members`
 * would be left, none of them is a candidate (a state that will not change: no waiting).
 */
export interface Floor {
  /** "group gpu minimum 1". */
  reason: string;
  minimum: number;
  members: ReadonlySet<string>;
}

/** adaptive.groups' minimums over the plan's workers (name and host). */
export function groupFloors(
  groups: readonly { name: string; hosts: readonly string[]; minimum: number }[],
  plan: readonly { name: string; host: string }[],
): Floor[] {
  return groups
    .filter((g) => g.minimum > 0)
    .map((g) => ({
      reason: `group ${g.name} minimum ${g.minimum}`,
      minimum: g.minimum,
      members: new Set(plan.filter((w) => g.hosts.includes(w.host)).map((w) => w.name)),
    }));
}

export interface DownCandidates {
  /** Up to `needed` names, in the order they should go. */
  names: string[];
  /** Those of `names` that never registered (nothing to retire at the scheduler). */
  notArrived: Set<string>;
  /** Workers that would have been picked, but a group minimum keeps them. */
  kept: { name: string; reason: string }[];
  /** Why fewer than `needed` were found: "worker busy: n1-0", "scheduler recommends 0 of 2". */
  blocked?: string;
}

/**
 * Not yet arrived: not launched before starting, the newest (last in the plan) first
 * within each — the ones furthest from being useful. Dask takes them in set order.
 * Then the scheduler's recommendations, skipping names not registered in the plan and
 * busy workers; without recommendations, registered idle workers from the end of the
 * plan (AdaptiveCore.workers_to_close's default, `observed[target:]`). Unlike Dask,
 * which adds the whole workers_to_close list, at most `needed` names are taken, so a
 * list asked for without a target (memory_ratio mode) cannot over-shrink.
 */
export function downCandidates(
  workers: readonly AdaptiveWorker[],
  needed: number,
  recommends?: readonly string[],
  opts: { allowBusy?: boolean; floors?: readonly Floor[] } = {},
): DownCandidates {
  const newestFirst = [...workers].reverse();
  const unarrived = [
    ...newestFirst.filter((w) => !w.registered && !w.starting),
    ...newestFirst.filter((w) => !w.registered && w.starting),
  ];
  const floor = floorGuard(workers, opts.floors ?? []);
  const kept = floor.kept;
  const names = floor.take(
    unarrived.map((w) => w.name),
    needed,
  );
  const notArrived = new Set(names);
  const remaining = needed - names.length;
  if (remaining <= 0) return { names, notArrived, kept };

  const byName = new Map(workers.map((w) => [w.name, w]));
  const pool = recommends
    ? [...new Set(recommends)].map((n) => byName.get(n)).filter((w): w is AdaptiveWorker => !!w && w.registered)
    : newestFirst.filter((w) => w.registered);
  const idle = pool.filter((w) => !w.busy);
  names.push(
    ...floor.take(
      idle.map((w) => w.name),
      remaining,
    ),
  );
  const short = needed - names.length;
  if (short <= 0) return { names, notArrived, kept };

  const taken = new Set(names);
  const busy = workers.filter((w) => w.registered && w.busy && !taken.has(w.name)).map((w) => w.name);
  if (opts.allowBusy) {
    // Over the maximum: Dask's retire_workers moves their data and the scheduler
    // reschedules their running tasks, so a busy worker may go too (least busy first
    // when the scheduler's order is known).
    const order = pool.filter((w) => w.busy).map((w) => w.name);
    const rest = [...order, ...busy.filter((n) => !order.includes(n))];
    names.push(...floor.take(rest, short));
    if (needed - names.length <= 0) return { names, notArrived, kept };
  }
  // Short because a minimum keeps them: that is the reason, not the scheduler's list.
  if (kept.length && busy.length === 0) return { names, notArrived, kept };
  const blocked =
    busy.length > 0
      ? `worker busy: ${listNames(busy)}`
      : recommends
        ? `scheduler recommends ${idle.length} of ${remaining} to close`
        : `no idle worker to close`;
  return { names, notArrived, kept, blocked };
}

/** Takes names while no floor would go below its minimum; the refused are `kept`. */
function floorGuard(workers: readonly AdaptiveWorker[], floors: readonly Floor[]) {
  const inPlan = new Set(workers.map((w) => w.name));
  const left = floors.map((f) => [...f.members].filter((n) => inPlan.has(n)).length);
  const kept: { name: string; reason: string }[] = [];
  const take = (candidates: readonly string[], n: number): string[] => {
    const out: string[] = [];
    for (const name of candidates) {
      if (out.length >= n) break;
      const stop = floors.findIndex((f, i) => f.members.has(name) && left[i]! <= f.minimum);
      if (stop >= 0) {
        if (!kept.some((k) => k.name === name)) kept.push({ name, reason: floors[stop]!.reason });
        continue;
      }
      floors.forEach((f, i) => f.members.has(name) && (left[i] = left[i]! - 1));
      out.push(name);
    }
    return out;
  };
  return { take, kept };
}

function listNames(names: readonly string[], max = 5): string {
  return names.length <= max ? names.join(', ') : `${names.slice(0, max).join(', ')} and ${names.length - max} more`;
}
