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

export interface DownCandidates {
  /** Up to `needed` names, in the order they should go. */
  names: string[];
  /** Those of `names` that never registered (nothing to retire at the scheduler). */
  notArrived: Set<string>;
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
  opts: { allowBusy?: boolean } = {},
): DownCandidates {
  const newestFirst = [...workers].reverse();
  const unarrived = [
    ...newestFirst.filter((w) => !w.registered && !w.starting),
    ...newestFirst.filter((w) => !w.registered && w.starting),
  ];
  const names = unarrived.slice(0, Math.max(0, needed)).map((w) => w.name);
  const notArrived = new Set(names);
  const remaining = needed - names.length;
  if (remaining <= 0) return { names, notArrived };

  const byName = new Map(workers.map((w) => [w.name, w]));
  const pool = recommends
    ? [...new Set(recommends)].map((n) => byName.get(n)).filter((w): w is AdaptiveWorker => !!w && w.registered)
    : newestFirst.filter((w) => w.registered);
  const idle = pool.filter((w) => !w.busy);
  names.push(...idle.slice(0, remaining).map((w) => w.name));
  const short = needed - names.length;
  if (short <= 0) return { names, notArrived };

  const taken = new Set(names);
  const busy = workers.filter((w) => w.registered && w.busy && !taken.has(w.name)).map((w) => w.name);
  if (opts.allowBusy) {
    // Over the maximum: Dask's retire_workers moves their data and the scheduler
    // reschedules their running tasks, so a busy worker may go too (least busy first
    // when the scheduler's order is known).
    const order = pool.filter((w) => w.busy).map((w) => w.name);
    const rest = [...order, ...busy.filter((n) => !order.includes(n))];
    names.push(...rest.slice(0, short));
    if (needed - names.length <= 0) return { names, notArrived };
  }
  const blocked =
    busy.length > 0
      ? `worker busy: ${listNames(busy)}`
      : recommends
        ? `scheduler recommends ${idle.length} of ${remaining} to close`
        : `no idle worker to close`;
  return { names, notArrived, blocked };
}

function listNames(names: readonly string[], max = 5): string {
  return names.length <= max ? names.join(', ') : `${names.slice(0, max).join(', ')} and ${names.length - max} more`;
}
