// `adapt --max 10` where the hosts have 2 worker slots (max_workers) is accepted (a host
// file can add hosts later), but said: placement can never reach the maximum.

/** A warning when `maximum` is above the worker slots all hosts together have. */
export function slotsWarning(maximum: number, hosts: readonly { maxWorkers: number }[]): string | undefined {
  const slots = hosts.reduce((n, h) => n + h.maxWorkers, 0);
  // No maximum (∞) asks for as many as fit: nothing to say.
  if (!Number.isFinite(maximum) || maximum <= slots) return undefined;
  return `maximum ${maximum}: the hosts have ${slots} worker slot${slots === 1 ? '' : 's'} (max_workers), so at most ${slots} worker${slots === 1 ? '' : 's'} can be placed`;
}
