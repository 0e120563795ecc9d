// `adapt --max 10` where the hosts have 2 worker slots (max_workers) is accepted (a host
// file can add hosts later), but said: placement can never reach the maximum. Nor a
// minimum above them (a host file's is refused; a running cluster's is said).

/** A warning when `minimum`, else `maximum`, is above the worker slots all hosts together have. */
export function slotsWarning(
  maximum: number,
  hosts: readonly { maxWorkers: number }[],
  minimum = 0,
): string | undefined {
  const slots = hosts.reduce((n, h) => n + h.maxWorkers, 0);
  // No maximum (∞) asks for as many as fit: nothing to say of it.
  const bound =
    minimum > slots
      ? `minimum ${minimum}`
      : Number.isFinite(maximum) && maximum > slots
        ? `maximum ${maximum}`
        : undefined;
  if (!bound) return undefined;
  return `${bound}: the hosts have ${slots} worker slot${slots === 1 ? '' : 's'} (max_workers), so at most ${slots} worker${slots === 1 ? '' : 's'} can be placed`;
}
