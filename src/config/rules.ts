// Checks that need more than one key: unique worker hosts, at least one worker host,
// per-host bounds, adaptive bounds against capacity.
import { resolveAdaptiveGroups } from './adaptive-groups.js';
import { DEFAULT_WORKER_OPTIONS } from './defaults.js';
import type { Layout, PlacedHost } from './layout.js';
import type { RawHostFile } from './schema.js';
import type { AdaptiveGroupSpec } from './spec.js';
import { configError } from './config-error.js';
import { newWorkerSize } from './worker-size.js';
import { bytes } from '../events/units.js';

export function checkRules(raw: RawHostFile, layout: Layout): void {
  checkDuplicates(layout.workers);
  if (layout.workers.length === 0) {
    const only = layout.scheduler.name;
    throw configError(
      { ...raw.hosts[0]!.where, keyPath: 'hosts' },
      `only one host ("${only}"), and it runs the scheduler: no host is left for workers`,
      `list it twice to run workers on it too: hosts: [${only}, ${only}]`,
    );
  }
  checkSchedulerListing(layout);
  for (const w of layout.workers) checkMaxWorkers(raw, w);
  checkAdaptiveCapacity(raw, layout.workers);
  if (raw.adaptive?.groups) adaptiveGroups(raw, layout);
}

/** Resolved (and checked) adaptive.groups; the cluster maximum defaults to all slots. */
export function adaptiveGroups(raw: RawHostFile, layout: Layout): AdaptiveGroupSpec[] {
  const maximum = raw.adaptive?.maximum ?? capacity(raw, layout.workers);
  return resolveAdaptiveGroups(
    raw.adaptive?.groups ?? [],
    layout,
    (w) => w.entry.max_workers ?? nworkersOf(raw, w),
    maximum,
  );
}

function checkDuplicates(workers: PlacedHost[]): void {
  const seen = new Map<string, PlacedHost>();
  for (const w of workers) {
    const first = seen.get(w.name);
    if (first) {
      const at = first.entry.where;
      throw configError(
        w.entry.where,
        `duplicate host "${w.name}" (already listed at ${at.keyPath}, line ${at.line})`,
        'a host may be listed twice only when it is the scheduler host and should also run workers',
      );
    }
    seen.set(w.name, w);
  }
}

/**
 * Worker settings on the listing that runs the scheduler apply to no worker (a range's
 * serve its other hosts): refused rather than dropped without a word. Workers on the
 * scheduler's host come from its second listing, which has settings of its own.
 */
function checkSchedulerListing(layout: Layout): void {
  const { name, entry } = layout.scheduler;
  if (entry.names.length !== 1) return;
  const key = entry.workerOptionsWhere ? 'worker_options' : entry.maxWorkersWhere ? 'max_workers' : undefined;
  if (!key) return;
  const again = layout.workers.find((w) => w.name === name);
  const at = again?.entry.where;
  throw configError(
    (entry.workerOptionsWhere ?? entry.maxWorkersWhere)!,
    `${key} here applies to no worker: this listing of "${name}" runs the scheduler`,
    at
      ? `its workers take their settings from its other listing (${at.keyPath}, line ${at.line}): move ${key} there`
      : `as in Dask's SSHCluster the scheduler's host runs no workers; to run some there, list it again with them: hosts: [${name}, {host: ${name}, ${key}: ...}, ...]`,
  );
}

export function nworkersOf(raw: RawHostFile, w: PlacedHost): number {
  return w.entry.worker_options.nworkers ?? raw.worker_options.nworkers ?? DEFAULT_WORKER_OPTIONS.nworkers;
}

function checkMaxWorkers(raw: RawHostFile, w: PlacedHost): void {
  const max = w.entry.max_workers;
  const n = nworkersOf(raw, w);
  if (max !== undefined && max < n && w.entry.maxWorkersWhere) {
    throw configError(w.entry.maxWorkersWhere, `expected a number >= worker_options.nworkers (${n})`);
  }
}

function checkAdaptiveCapacity(raw: RawHostFile, workers: PlacedHost[]): void {
  const a = raw.adaptive;
  const slots = capacity(raw, workers);
  if (a?.minimum !== undefined && a.minimumWhere && a.minimum > slots) {
    throw configError(a.minimumWhere, `expected at most ${slots}, the number of worker slots (sum of max_workers)`);
  }
  // The adaptive loop counts cores in workers like the first worker host's.
  const first = workers[0];
  const nthreads = first
    ? (first.entry.worker_options.nthreads ?? raw.worker_options.nthreads ?? DEFAULT_WORKER_OPTIONS.nthreads)
    : 0;
  if (a?.maximum_cores !== undefined && a.maximumCoresWhere && a.maximum_cores < nthreads) {
    throw configError(
      a.maximumCoresWhere,
      `expected at least ${nthreads}, one worker's nthreads: a smaller maximum_cores never keeps a worker`,
      'for no workers at all, use maximum: 0',
    );
  }
  // A memory_limit given as a size is known now (auto and fractions only once workers register).
  const limit = first ? (first.entry.worker_options.memory_limit ?? raw.worker_options.memory_limit) : undefined;
  const memory = limit === undefined ? 0 : newWorkerSize({ nthreads, memoryLimit: limit }).memoryBytes;
  if (a?.maximum_memory !== undefined && a.maximumMemoryWhere && memory > 0 && a.maximum_memory < memory) {
    throw configError(
      a.maximumMemoryWhere,
      `expected at least ${bytes(memory)} (${memory} bytes), one worker's memory_limit (${limit}): a smaller maximum_memory never keeps a worker`,
      'for no workers at all, use maximum: 0',
    );
  }
}

export function capacity(raw: RawHostFile, workers: PlacedHost[]): number {
  return workers.reduce((sum, w) => sum + (w.entry.max_workers ?? nworkersOf(raw, w)), 0);
}
