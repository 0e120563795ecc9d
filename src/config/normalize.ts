// RawHostFile → ClusterSpec: merge per-host overrides over the top level, fill
// defaults, resolve every host through ~/.ssh/config. Assumes rules have passed.
import { buildConnect, type ConnectContext } from './hosts/connect-spec.js';
import {
  DEFAULT_ADAPTIVE,
  DEFAULT_REMOTE_PYTHON,
  DEFAULT_SCHEDULER_OPTIONS,
  DEFAULT_WORKER_OPTIONS,
} from './defaults.js';
import type { Layout, PlacedHost } from './layout.js';
import { adaptiveGroups, capacity } from './rules.js';
import type { RawHostFile, RawWorkerOptions } from './schema.js';
import type { AdaptiveSpec, ClusterSpec, HostSpec, SchedulerOptions, WorkerOptions } from './spec.js';

export interface ClusterMeta {
  name: string;
  source: string;
}

export function buildClusterSpec(
  raw: RawHostFile,
  layout: Layout,
  meta: ClusterMeta,
  ctx: ConnectContext,
): ClusterSpec {
  const spec: ClusterSpec = {
    name: raw.name ?? meta.name,
    source: meta.source,
    local: false,
    schedulerHost: buildHost(raw, layout.scheduler, ctx),
    schedulerOptions: schedulerOptions(raw),
    workerHosts: layout.workers.map((w) => buildHost(raw, w, ctx)),
  };
  if (raw.adaptive) spec.adaptive = adaptive(raw, layout);
  return spec;
}

function buildHost(raw: RawHostFile, placed: PlacedHost, ctx: ConnectContext): HostSpec {
  const { entry, name } = placed;
  const address = {
    host: name,
    ...(entry.user ? { user: entry.user } : {}),
    ...(entry.port ? { port: entry.port } : {}),
  };
  const workerOptions = mergeWorkerOptions(raw.worker_options, entry.worker_options);
  return {
    name,
    connect: buildConnect(address, { ...raw.connect_options, ...entry.connect_options }, ctx, entry.where),
    remotePython: entry.remote_python ?? raw.remote_python ?? DEFAULT_REMOTE_PYTHON,
    env: { ...raw.env, ...entry.env },
    setup: entry.setup ?? raw.setup ?? [],
    workerOptions,
    maxWorkers: entry.max_workers ?? workerOptions.nworkers,
  };
}

function mergeWorkerOptions(top: RawWorkerOptions, host: RawWorkerOptions): WorkerOptions {
  const w = { ...top, ...host };
  const out: WorkerOptions = {
    nthreads: w.nthreads ?? DEFAULT_WORKER_OPTIONS.nthreads,
    nworkers: w.nworkers ?? DEFAULT_WORKER_OPTIONS.nworkers,
    memoryLimit: w.memory_limit ?? DEFAULT_WORKER_OPTIONS.memoryLimit,
    resources: w.resources ?? {},
    nanny: w.nanny ?? DEFAULT_WORKER_OPTIONS.nanny,
    deathTimeoutS: w.death_timeout_s ?? DEFAULT_WORKER_OPTIONS.deathTimeoutS,
  };
  if (w.interface !== undefined) out.interface = w.interface;
  return out;
}

function schedulerOptions(raw: RawHostFile): SchedulerOptions {
  const s = raw.scheduler_options;
  const out: SchedulerOptions = {
    port: s.port ?? DEFAULT_SCHEDULER_OPTIONS.port,
    dashboardAddress: s.dashboard_address ?? DEFAULT_SCHEDULER_OPTIONS.dashboardAddress,
  };
  if (s.host !== undefined) out.host = s.host;
  if (s.interface !== undefined) out.interface = s.interface;
  return out;
}

/**
 * Dask's default maximum is infinity; the worker slots (sum of max_workers) bound it
 * in practice and, unlike Infinity, survive JSON. An explicit `.inf` is kept.
 */
function adaptive(raw: RawHostFile, layout: Layout): AdaptiveSpec {
  const a = raw.adaptive ?? {};
  const out: AdaptiveSpec = {
    minimum: a.minimum ?? DEFAULT_ADAPTIVE.minimum,
    maximum: a.maximum ?? capacity(raw, layout.workers),
    intervalMs: a.interval_ms ?? DEFAULT_ADAPTIVE.intervalMs,
    waitCount: a.wait_count ?? DEFAULT_ADAPTIVE.waitCount,
    targetDurationMs: a.target_duration_ms ?? DEFAULT_ADAPTIVE.targetDurationMs,
  };
  if (a.minimum_cores !== undefined) out.minimumCores = a.minimum_cores;
  if (a.maximum_cores !== undefined) out.maximumCores = a.maximum_cores;
  if (a.minimum_memory !== undefined) out.minimumMemory = a.minimum_memory;
  if (a.maximum_memory !== undefined) out.maximumMemory = a.maximum_memory;
  if (a.groups && a.groups.length > 0) out.groups = adaptiveGroups(raw, layout);
  return out;
}
