// Where new workers go when pending work needs resources. Pure: hosts, demand and
// bounds in, per-host counts and one-line explanations of unmet demand out; naming the
// workers and starting them is the caller's. Dask's own target ignores resources
// (distributed#2118), so without this GPU tasks wait for ever behind CPU workers.
//
// Order of filling, each step within the cluster maximum and the group maxima:
// 1. restricted demand, the set with the fewest able hosts first, only on hosts whose
//    declared resources satisfy it; a worker added counts for every set it satisfies;
// 2. group minimums;
// 3. plain demand up to the target (any worker runs plain tasks, so workers added in
//    1 and 2 count), on hosts without resources first, then on hosts whose resources
//    no pending work needs, and only then on hosts pending restricted work needs, so
//    CPU work does not use up a GPU box while CPU boxes have room.
// Within a step, the host with the fewest workers first, ties in host order.
import type { WantedGroup } from '../../cluster/placement/demand.js';
import { blockedReasons, joinReasons, type Blocker } from './reasons.js';
import { isPlain, plural, resourceLabel, satisfies, type Resources } from '../../cluster/placement/resource-amounts.js';
import { MinHeap } from '../../cluster/placement/min-heap.js';

export interface ResourceHost {
  name: string;
  /** worker_options.resources: what each worker started there declares. */
  resources: Resources;
  maxWorkers: number;
  /** Workers there now (running or starting); workers of a host never reached are not. */
  workers: number;
  /** Why nothing new may go there now ("unreachable", "draining", …); undefined: usable. */
  unavailable?: string;
}

/** adaptive.groups.<name>: bounds on the workers of the hosts it names. */
export interface GroupBound {
  name: string;
  hosts: readonly string[];
  minimum: number;
  maximum: number;
}

export interface ResourcePlacementInput {
  /** Workers wanted for plain work: the adaptive policy's target, within the cluster bounds. */
  target: number;
  /** Restricted demand (workersWanted). */
  wanted: readonly WantedGroup[];
  hosts: readonly ResourceHost[];
  /** Cluster maximum. */
  maximum: number;
  groups?: readonly GroupBound[];
}

export interface UnmetDemand {
  /** "GPU", "plain", "group gpu minimum". */
  what: string;
  want: number;
  placeable: number;
  reasons: string[];
  /** "want 3 GPU workers, 1 placeable: gpu2 unreachable" */
  line: string;
}

export interface ResourcePlacement {
  /** New workers per host, hosts in the order they first got one. */
  add: { host: string; count: number }[];
  /** Workers after the adds: the target the adaptive policy should hold to. */
  total: number;
  unmet: UnmetDemand[];
}

export function placeByResource(input: ResourcePlacementInput): ResourcePlacement {
  const s = new Fill(input);
  const unmet: UnmetDemand[] = [];
  const able = input.wanted.map((g, i) => ({
    g,
    i,
    hosts: input.hosts.filter((h) => satisfies(h.resources, g.resources)),
  }));
  for (const { g, hosts } of able.sort((a, b) => a.hosts.length - b.hosts.length || a.i - b.i)) {
    const have = s.fillTo(hosts, g.workers, () => 0);
    if (have < g.workers) {
      const label = resourceLabel(g.resources);
      const reasons = hosts.length > 0 ? s.reasons(hosts) : [noHostReason(g.resources, input.hosts)];
      unmet.push(restrictedUnmet(label, g.workers, have, reasons));
    }
  }
  for (const b of input.groups ?? []) {
    const members = input.hosts.filter((h) => b.hosts.includes(h.name));
    const have = s.fillTo(members, b.minimum, () => 0);
    if (have < b.minimum)
      unmet.push(restrictedUnmet(`group ${b.name} minimum`, b.minimum, have, s.reasons(members), false));
  }
  const needed = able.filter((a) => a.g.tasks > 0).flatMap((a) => a.hosts.map((h) => h.name));
  const tier = (h: ResourceHost): number => (isPlain(h.resources) ? 0 : needed.includes(h.name) ? 2 : 1);
  const total = s.fillTo(input.hosts, input.target, tier);
  if (total < input.target) unmet.push(plainUnmet(input.target, total, s.reasons(input.hosts)));
  return { add: s.adds(), total: s.total(), unmet };
}

function restrictedUnmet(
  label: string,
  want: number,
  placeable: number,
  reasons: string[],
  workers = true,
): UnmetDemand {
  const what = workers ? `${plural(want, `${label} worker`)}` : `${label} ${want}`;
  return {
    what: label,
    want,
    placeable,
    reasons,
    line: `want ${what}, ${placeable} placeable: ${joinReasons(reasons)}`,
  };
}

function plainUnmet(target: number, placeable: number, reasons: string[]): UnmetDemand {
  return {
    what: 'plain',
    want: target,
    placeable,
    reasons,
    line: `target ${target}, ${placeable} placeable (${joinReasons(reasons)})`,
  };
}

/** "no host declares GPU", or "no host has GPU=4 (gpu1: GPU=2)" when some declare less. */
function noHostReason(need: Resources, hosts: readonly ResourceHost[]): string {
  const names = Object.keys(need).filter((k) => (need[k] ?? 0) > 0);
  const some = hosts.filter((h) => names.some((n) => (h.resources[n] ?? 0) > 0));
  if (some.length === 0) return `no host declares ${names.join(' or ')}`;
  const shown = some
    .slice(0, 3)
    .map((h) => `${h.name}: ${resourceLabel(Object.fromEntries(names.map((n) => [n, h.resources[n] ?? 0])))}`);
  return `no host has ${resourceLabel(need)} (${shown.join(', ')}${some.length > 3 ? ', …' : ''})`;
}

/** The running tally of one placement: workers per host, per group, in all. */
class Fill {
  private readonly count = new Map<string, number>();
  private readonly added = new Map<string, number>();
  private readonly order = new Map<string, number>();
  /** Per group: the workers on its hosts now; per host: the groups that name it. */
  private readonly groupHeld = new Map<GroupBound, number>();
  private readonly groupsOf = new Map<string, GroupBound[]>();
  private sum: number;

  constructor(private readonly input: ResourcePlacementInput) {
    for (const h of input.hosts) this.count.set(h.name, (this.count.get(h.name) ?? 0) + h.workers);
    input.hosts.forEach((h, i) => this.order.has(h.name) || this.order.set(h.name, i));
    this.sum = [...this.count.values()].reduce((a, b) => a + b, 0);
    for (const g of input.groups ?? []) {
      const names = new Set(g.hosts);
      let held = 0;
      for (const name of this.count.keys()) {
        if (!names.has(name)) continue;
        held += this.count.get(name) ?? 0;
        this.groupsOf.set(name, [...(this.groupsOf.get(name) ?? []), g]);
      }
      this.groupHeld.set(g, held);
    }
  }

  total(): number {
    return this.sum;
  }

  adds(): { host: string; count: number }[] {
    return [...this.added].map(([host, count]) => ({ host, count }));
  }

  /**
   * Adds workers on `hosts` until they hold `want` (or nothing more fits); returns what
   * they hold. Each goes to the open host first by (tier, workers there, host order). A
   * host once blocked stays blocked (counts only grow), so a heap of the open hosts picks
   * each in log time: a wave of thousands of workers over thousands of hosts.
   */
  fillTo(hosts: readonly ResourceHost[], want: number, tier: (h: ResourceHost) => number): number {
    const unique = [...new Map(hosts.map((h) => [h.name, h])).values()];
    let held = unique.reduce((a, h) => a + this.on(h), 0);
    // By (tier, workers there, host order), compared without making a key per comparison;
    // a host's tier is fixed, so found once, not per comparison.
    const tiers = new Map(unique.map((h) => [h, tier(h)]));
    const tierOf = (h: ResourceHost) => tiers.get(h) ?? 0;
    const heap = new MinHeap<ResourceHost>(
      (a, b) =>
        tierOf(a) - tierOf(b) ||
        this.on(a) - this.on(b) ||
        (this.order.get(a.name) ?? 0) - (this.order.get(b.name) ?? 0),
    );
    for (const h of unique) if (this.blocker(h) === undefined) heap.push(h);
    while (held < want) {
      const best = heap.pop();
      if (!best) break;
      if (this.blocker(best) !== undefined) continue;
      this.count.set(best.name, this.on(best) + 1);
      this.added.set(best.name, (this.added.get(best.name) ?? 0) + 1);
      for (const g of this.groupsOf.get(best.name) ?? []) this.groupHeld.set(g, (this.groupHeld.get(g) ?? 0) + 1);
      this.sum += 1;
      held += 1;
      heap.push(best);
    }
    return held;
  }

  reasons(hosts: readonly ResourceHost[]): string[] {
    return blockedReasons(hosts.map((h) => ({ host: h, blocker: this.blocker(h) })));
  }

  private on(h: ResourceHost): number {
    return this.count.get(h.name) ?? 0;
  }

  private blocker(h: ResourceHost): Blocker | undefined {
    if (h.unavailable !== undefined) return { kind: 'unavailable', why: h.unavailable };
    if (this.on(h) >= h.maxWorkers) return { kind: 'full' };
    const full = (this.groupsOf.get(h.name) ?? []).find((g) => (this.groupHeld.get(g) ?? 0) >= g.maximum);
    if (full) return { kind: 'bound', why: `group ${full.name} maximum ${full.maximum}` };
    if (this.sum >= this.input.maximum) return { kind: 'bound', why: `maximum ${this.input.maximum}` };
    return undefined;
  }
}
