// Changes to a running cluster's desired state that `apply` and `drain` make: a new spec
// with its worker counts per host, hosts taken out of placement and back. Pure over
// ClusterState; the next reconcile tick makes the processes follow (a removed or drained
// host's workers are retired through the scheduler, their data moved).
import { clusterHosts, type ClusterSpec } from '../../config/spec.js';
import type { ClusterState } from '../cluster-state.js';
import { withFormer } from './former-hosts.js';
import { placeWorkers } from '../placement/placement.js';
import { addWorkers, dropWorkers } from '../placement/scaling.js';
import type { KeptWorker } from '../retire-hold.js';
import type { SpecDiff } from './spec-diff.js';

/** The new spec in force; each host's worker count as the diff says (removed hosts: 0). */
export function applySpec(s: ClusterState, next: ClusterSpec, diff: SpecDiff): void {
  // Only hosts that got something of ours: one never connected has nothing to clear.
  const had = (host: string) => s.runners.has(host) || s.all().some((t) => t.desired.host === host);
  for (const h of s.spec.workerHosts.filter((x) => had(x.name)))
    s.formerHosts = withFormer(
      s.formerHosts,
      h,
      clusterHosts(next).find((n) => n.name === h.name),
    );
  s.spec = next;
  for (const host of diff.hostsAdded) if (!s.runners.has(host)) s.unreached.add(host);
  s.drainShort = 0; // the file's counts are the size from here on
  for (const host of diff.hostsRemoved) s.drained.delete(host);
  for (const c of diff.counts) {
    const on = s.desiredWorkers.filter((w) => w.host === c.host);
    if (c.to < c.from)
      dropWorkers(
        s,
        on.slice(c.to).map((w) => w.name),
      );
    else addWorkers(s, [{ host: c.host, count: c.to - c.from }]);
  }
}

/** The host spec `host` had before (a failed roll puts it back), in the spec in force. */
export function restoreHost(s: ClusterState, old: ClusterSpec, host: string): void {
  const before = old.workerHosts.find((h) => h.name === host);
  const now = s.spec.workerHosts.find((h) => h.name === host);
  if (!before || !now) return;
  s.formerHosts = withFormer(s.formerHosts, now, before);
  s.spec = { ...s.spec, workerHosts: s.spec.workerHosts.map((h) => (h.name === host ? before : h)) };
}

export interface DrainResult {
  /** Hosts of the request not in the cluster. */
  unknown: string[];
  /** Hosts of the request already as asked: drained before a drain, not drained at an undrain. */
  unchanged: string[];
  retired: string[];
  /** Workers started elsewhere to keep the cluster's size (undrain: those started again). */
  replaced: string[];
  /** Wanted again while still running, held by an earlier retirement: kept, not started. */
  kept?: string[];
  /** Workers the size is short of, for want of room: started again at undrain. */
  short: number;
  /** Of the drained hosts' workers, those the scheduler could not retire: kept running, retried later. */
  held?: KeptWorker[];
  /** Those stopped anyway (`--force`), with the results lost. */
  dropped?: KeptWorker[];
}

/**
 * Takes hosts out: nothing new is placed there and their workers leave the desired set.
 * `keepSize`: as many are placed on the other hosts as they have room for (a fixed-size
 * cluster keeps its size through maintenance; adaptive places on its own).
 */
export function drainHosts(s: ClusterState, hosts: readonly string[], keepSize: boolean): DrainResult {
  const known = new Set(s.spec.workerHosts.map((h) => h.name));
  const unknown = hosts.filter((h) => !known.has(h));
  const unchanged = hosts.filter((h) => s.drained.has(h));
  for (const h of hosts) if (known.has(h)) s.drained.add(h);
  const retired = s.desiredWorkers.filter((w) => s.drained.has(w.host) && hosts.includes(w.host)).map((w) => w.name);
  const size = s.desiredWorkers.length;
  dropWorkers(s, retired);
  if (!keepSize) return { unknown, unchanged, retired, replaced: [], short: 0 };
  const { started: replaced, kept } = placeMore(s, size - s.desiredWorkers.length);
  s.drainShort += size - s.desiredWorkers.length;
  return { unknown, unchanged, retired, replaced, ...(kept.length ? { kept } : {}), short: s.drainShort };
}

/**
 * Back in placement; the workers moved away stay where they are, and those a drain
 * found no room for (a fixed-size cluster's shortfall) start again where there is room.
 */
export function undrainHosts(s: ClusterState, hosts: readonly string[]): DrainResult & { back: string[] } {
  const known = new Set(s.spec.workerHosts.map((h) => h.name));
  const back = hosts.filter((h) => s.drained.delete(h));
  const { started: replaced, kept } = back.length ? placeMore(s, s.drainShort) : { started: [], kept: [] };
  s.drainShort -= replaced.length + kept.length;
  const rest = hosts.filter((h) => !back.includes(h));
  return {
    back,
    unknown: rest.filter((h) => !known.has(h)),
    unchanged: rest.filter((h) => known.has(h)),
    retired: [],
    replaced,
    ...(kept.length ? { kept } : {}),
    short: s.drainShort,
  };
}

/**
 * Up to n more workers where there is room: those to start, and those that a retirement
 * held back (results with nowhere to go) and still run, wanted again as they are.
 */
function placeMore(s: ClusterState, n: number): { started: string[]; kept: string[] } {
  if (n <= 0) return { started: [], kept: [] };
  const p = placeWorkers(s.desiredWorkers.length + n, s.placementHosts(), s.desiredWorkers);
  for (const w of p.added) s.supervisor.reset(w.name);
  s.desiredWorkers = p.workers;
  const names = p.added.map((w) => w.name);
  const running = (name: string) => {
    const t = s.processes.get(name);
    return s.held.has(name) && t !== undefined && !t.exit;
  };
  return { started: names.filter((x) => !running(x)), kept: names.filter(running) };
}
