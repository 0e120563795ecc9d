// Where workers go when the worker count changes (`scale N`, adaptive). Pure: the
// caller turns the returned desired set into processes and lets plan() diff it.
import { MinHeap } from './min-heap.js';
import { workerName } from '../plan-actions.js';

export interface PlacementHost {
  name: string;
  maxWorkers: number;
  /** false: keep its workers (they may come back) but place nothing new there. */
  healthy: boolean;
}

export interface PlacedWorker {
  name: string;
  host: string;
}

export interface Placement {
  /** The desired worker set: kept workers in their given order, then the added ones. */
  workers: PlacedWorker[];
  /** New workers, in the order they were placed. */
  added: PlacedWorker[];
  /** Current workers left out, in the order they were picked for removal. */
  removed: PlacedWorker[];
  /** n − workers.length when n cannot be reached, else 0. */
  shortfall: number;
  /** Largest desired set reachable now: slots on healthy hosts + workers kept elsewhere. */
  capacity: number;
  /** Σ maxWorkers over healthy hosts, for messages. */
  healthySlots: number;
}

interface Slot {
  name: string;
  order: number;
  maxWorkers: number;
  healthy: boolean;
  workers: PlacedWorker[];
}

/**
 * The desired worker set of size n (or as close as capacity allows).
 *
 * - Existing workers keep their names and hosts; nothing is ever renamed or moved.
 * - Growing adds to healthy hosts with a free slot (count < maxWorkers), the host with
 *   the fewest workers first, ties by host order; a new name is `<host>-<i>` with the
 *   lowest i in [0, maxWorkers) not taken.
 * - Shrinking removes from unhealthy hosts first, then from the host with the most
 *   workers (ties: the later host), its highest index first.
 * - Workers on an unhealthy host count towards n and are kept when growing: a host that
 *   is briefly unreachable must not have its workers duplicated elsewhere. A caller that
 *   wants them replaced retires them explicitly first.
 * - Workers on a host missing from `hosts` are treated as on an unhealthy host placed
 *   after all listed hosts: kept when growing, removed first when shrinking.
 * - A host already above maxWorkers keeps its workers; it is simply the fullest.
 */
export function placeWorkers(n: number, hosts: readonly PlacementHost[], current: readonly PlacedWorker[]): Placement {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`worker count must be a non-negative integer, got ${n}`);
  const slots = slotsOf(hosts, current);
  const kept = uniqueByName(current);
  const healthySlots = hosts.filter((h) => h.healthy).reduce((s, h) => s + Math.max(0, h.maxWorkers), 0);
  const capacity = [...slots.values()].reduce(
    (s, h) => s + (h.healthy ? Math.max(h.maxWorkers, h.workers.length) : h.workers.length),
    0,
  );
  const added: PlacedWorker[] = [];
  const removed: PlacedWorker[] = [];
  if (n >= kept.length) {
    const taken = new Set(kept.map((w) => w.name));
    const open = new MinHeap<Slot>((a, b) => a.workers.length - b.workers.length || a.order - b.order);
    for (const s of slots.values()) if (s.healthy && s.workers.length < s.maxWorkers) open.push(s);
    for (let k = kept.length; k < n; k++) {
      const w = addOne(open, taken);
      if (!w) break;
      added.push(w);
    }
  } else {
    const held = new MinHeap<Slot>(
      (a, b) => Number(a.healthy) - Number(b.healthy) || b.workers.length - a.workers.length || b.order - a.order,
    );
    for (const s of slots.values()) if (s.workers.length > 0) held.push(s);
    for (let k = kept.length; k > n; k--) {
      const w = removeOne(held);
      if (!w) break;
      removed.push(w);
    }
  }
  const gone = new Set(removed.map((w) => w.name));
  const workers = [...kept.filter((w) => !gone.has(w.name)), ...added];
  return { workers, added, removed, shortfall: Math.max(0, n - workers.length), capacity, healthySlots };
}

/** "asked for 12 workers, only 9 can be placed: 8 slots on healthy hosts, 1 kept on unhealthy hosts (c)", or undefined. */
export function explainShortfall(n: number, placement: Placement, hosts: readonly PlacementHost[]): string | undefined {
  if (placement.shortfall === 0) return undefined;
  const healthy = new Set(hosts.filter((h) => h.healthy).map((h) => h.name));
  const elsewhere = placement.workers.filter((w) => !healthy.has(w.host));
  const plural = (k: number, what: string): string => `${k} ${what}${k === 1 ? '' : 's'}`;
  let msg = `asked for ${plural(n, 'worker')}, only ${placement.workers.length} can be placed: ${plural(placement.healthySlots, 'slot')} on healthy hosts`;
  if (elsewhere.length > 0) {
    const names = [...new Set(elsewhere.map((w) => w.host))].join(', ');
    msg += `, ${elsewhere.length} kept on unhealthy hosts (${names})`;
  }
  return msg;
}

function uniqueByName(current: readonly PlacedWorker[]): PlacedWorker[] {
  const seen = new Set<string>();
  return current.filter((w) => (seen.has(w.name) ? false : (seen.add(w.name), true)));
}

function slotsOf(hosts: readonly PlacementHost[], current: readonly PlacedWorker[]): Map<string, Slot> {
  const slots = new Map<string, Slot>();
  for (const h of hosts) {
    if (!slots.has(h.name))
      slots.set(h.name, { name: h.name, order: slots.size, maxWorkers: h.maxWorkers, healthy: h.healthy, workers: [] });
  }
  for (const w of uniqueByName(current)) {
    let s = slots.get(w.host);
    if (!s) {
      s = { name: w.host, order: slots.size, maxWorkers: 0, healthy: false, workers: [] };
      slots.set(w.host, s);
    }
    s.workers.push({ name: w.name, host: w.host });
  }
  return slots;
}

/** The i of `<host>-<i>`, or -1 for a name of another shape (removed last on its host). */
function indexOf(w: PlacedWorker): number {
  const prefix = `${w.host}-`;
  const rest = w.name.startsWith(prefix) ? w.name.slice(prefix.length) : '';
  return /^(0|[1-9]\d*)$/.test(rest) ? Number(rest) : -1;
}

/** A new worker on the open host with the fewest workers (ties: host order); `open` keeps the hosts with room. */
function addOne(open: MinHeap<Slot>, taken: Set<string>): PlacedWorker | undefined {
  for (let host = open.pop(); host; host = open.pop()) {
    for (let i = 0; i < host.maxWorkers; i++) {
      const name = workerName(host.name, i);
      if (taken.has(name)) continue;
      const w = { name, host: host.name };
      taken.add(name);
      host.workers.push(w);
      if (host.workers.length < host.maxWorkers) open.push(host);
      return w;
    }
    // Every index taken (odd names elsewhere hold them), for good: the next host may still have room.
  }
  return undefined;
}

/** The worker to remove: unhealthy hosts first, then the fullest (ties: the later host), its highest index. */
function removeOne(held: MinHeap<Slot>): PlacedWorker | undefined {
  const host = held.pop();
  if (!host) return undefined;
  const victim = [...host.workers].sort((a, b) => indexOf(b) - indexOf(a) || (b.name < a.name ? -1 : 1))[0]!;
  host.workers = host.workers.filter((w) => w !== victim);
  if (host.workers.length > 0) held.push(host);
  return victim;
}
