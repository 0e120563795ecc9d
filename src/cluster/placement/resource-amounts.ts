// Dask's Worker Resources, as placement sees them: a worker declares amounts
// (`dask worker --resources "GPU=2"`), a task needs amounts (`resources={"GPU": 1}`),
// and the task may run on a worker only if every amount it needs is declared there.
// Pure helpers shared by the demand, placement and scale-down rules.

export type Resources = Readonly<Record<string, number>>;

/** A worker declaring `declared` can run a task needing `need` (Scheduler.valid_workers). */
export function satisfies(declared: Resources, need: Resources): boolean {
  return Object.entries(need).every(([name, amount]) => amount <= 0 || (declared[name] ?? 0) >= amount);
}

/** Tasks needing `need` one worker runs at once: its threads, and each resource's share. */
export function slotsFor(declared: Resources, nthreads: number, need: Resources): number {
  let slots = Math.max(0, Math.floor(nthreads));
  for (const [name, amount] of Object.entries(need)) {
    if (amount > 0) slots = Math.min(slots, Math.floor((declared[name] ?? 0) / amount));
  }
  return slots;
}

export function isPlain(resources: Resources): boolean {
  // No array made: placement asks it of every host, many times a step.
  for (const k in resources) if (Object.hasOwn(resources, k) && !(resources[k]! <= 0)) return false;
  return true;
}

/** {GPU: 1} → "GPU", {GPU: 2, MEMORY: 70e9} → "GPU=2+MEMORY=70000000000", in name order. */
export function resourceLabel(need: Resources): string {
  const parts = Object.entries(need)
    .filter(([, v]) => v > 0)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => (v === 1 ? k : `${k}=${v}`));
  return parts.length > 0 ? parts.join('+') : 'plain';
}

/** "a, b, c" or "a, b, c and 4 more". */
export function listNames(names: readonly string[], max = 3): string {
  return names.length <= max ? names.join(', ') : `${names.slice(0, max).join(', ')} and ${names.length - max} more`;
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
