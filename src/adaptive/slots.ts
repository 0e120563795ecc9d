// `adapt --max 10` where the hosts have 2 worker slots (max_workers) is accepted (a host
// file can add hosts later), but said: placement can never reach the maximum. Nor a
// minimum above them (a host file's is refused; a running cluster's is said), whether
// given in workers or in cores or memory (`--minimum-memory 64GiB` of 8 GiB workers).
import type { WorkerBounds } from './target.js';

/** A warning when the minimum, else the maximum (in workers, workerBounds), is above the worker slots all hosts together have. */
export function slotsWarning(b: WorkerBounds, hosts: readonly { maxWorkers: number }[]): string | undefined {
  const slots = hosts.reduce((n, h) => n + h.maxWorkers, 0);
  const said = (n: number, from: string): string =>
    /^(minimum|maximum)$/.test(from) ? `${from} ${n}` : `${from} (${n} workers)`;
  // No maximum (∞) asks for as many as fit: nothing to say of it.
  const bound =
    b.minimum > slots
      ? said(b.minimum, b.minimumFrom)
      : Number.isFinite(b.maximum) && b.maximum > slots
        ? said(b.maximum, b.maximumFrom)
        : undefined;
  if (!bound) return undefined;
  return `${bound}: the hosts have ${slots} worker slot${slots === 1 ? '' : 's'} (max_workers), so at most ${slots} worker${slots === 1 ? '' : 's'} can be placed`;
}
