// The adaptive target: the scheduler's number, corrected for schedulers that count
// threads, then clipped to the configured bounds. Pure; the loop fetches the number.
import type { AdaptiveSpec } from '../config/spec.js';
import { bytes } from '../events/units.js';

/**
 * First distributed release whose adaptive_target divides by the workers' mean nthreads:
 * dask/distributed#8041 ("Respect average nthreads in adaptive", commit a7f7764c,
 * 2023-07-28). It is in 2023.8.0 and not in 2023.7.0 or 2023.7.1.
 */
export const NTHREADS_AWARE_SINCE = [2023, 8, 0] as const;

export interface TargetContext {
  /** distributed.__version__ of the scheduler: "2022.12.1", "2022.12.1+ds.1", "2023.8.0". */
  daskVersion: string;
  /** nthreads of the workers the scheduler has now (its `self.workers`). */
  workerNthreads: readonly number[];
  /** nthreads of a worker we would start. */
  defaultNthreads: number;
}

/**
 * First distributed release whose adaptive_target counts unrunnable tasks (their expected
 * durations, as queued ones): dask/distributed#8037 ("Use queued tasks in adaptive
 * target", merged 2023-07-27), also in 2023.8.0. Before it an unrunnable task counts only
 * through "something unrunnable and no workers: at least 1".
 */
export const UNRUNNABLE_COUNTED_SINCE = [2023, 8, 0] as const;

/** [year, month, patch] of a distributed version, or undefined when it is not one. */
export function parseDaskVersion(version: string): [number, number, number] | undefined {
  const m = /^\s*v?(\d+)\.(\d+)(?:\.(\d+))?/.exec(version);
  if (!m) return undefined;
  return [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)];
}

/**
 * Whether this scheduler's adaptive_target counts threads rather than workers. An
 * unparseable version is trusted as counting workers: the number is documented as
 * workers, and an uncorrected target over-provisions (up to `maximum`) where a wrong
 * correction would starve the cluster.
 */
export function countsThreads(daskVersion: string): boolean {
  return before(daskVersion, NTHREADS_AWARE_SINCE) === true;
}

/**
 * Whether this scheduler's adaptive_target adds the expected time of unrunnable tasks.
 * An unparseable version is taken as a current one: it does.
 */
export function countsUnrunnable(daskVersion: string): boolean {
  return before(daskVersion, UNRUNNABLE_COUNTED_SINCE) !== true;
}

/** Whether the version is older than `since`; undefined when it is not a version. */
function before(daskVersion: string, since: readonly [number, number, number]): boolean | undefined {
  const v = parseDaskVersion(daskVersion);
  if (!v) return undefined;
  for (let i = 0; i < 3; i++) {
    if (v[i]! !== since[i]) return v[i]! < since[i]!;
  }
  return false;
}

/**
 * Threads per worker used to turn a thread count into workers: the mean over the
 * scheduler's current workers (what the fixed scheduler divides by: Σ nthreads /
 * len(workers)), else the nthreads of the workers we would start. Never below 1.
 */
export function typicalNthreads(ctx: Pick<TargetContext, 'workerNthreads' | 'defaultNthreads'>): number {
  const known = ctx.workerNthreads.filter((n) => Number.isFinite(n) && n > 0);
  const mean = known.length > 0 ? known.reduce((s, n) => s + n, 0) / known.length : ctx.defaultNthreads;
  return Number.isFinite(mean) && mean >= 1 ? mean : 1;
}

/**
 * The scheduler's target in workers.
 *
 * What distributed 2022.12.1 returns (scheduler.py, Scheduler.adaptive_target, 7718-7771):
 * - 7742-7744: `cpu = ceil((total_occupancy + queued_occupancy) / target_duration)  # TODO:
 *   threads per worker` — thread-seconds over seconds, i.e. threads; 7746-7754 caps it
 *   by the ready task count, also threads.
 * - 7760-7764: `memory = 2 * len(self.workers)` under memory pressure — workers.
 * - 7766-7768: `target = max(memory, cpu)`; returned when `>= len(self.workers)`.
 * - 7769-7771: otherwise `len(self.workers) - len(self.workers_to_close())` — workers.
 * So only the cpu term is in threads. The HTTP route (http/scheduler/api.py:51-63) wraps
 * it as {"workers": n}. We therefore divide only when the number can be the cpu term:
 * - raw < len(workers): the scale-down branch, already workers — returned as is;
 * - raw == 2·len(workers) > 0: possibly the memory term; returned as is, erring towards
 *   capacity (a cpu term of exactly 2·len(workers) threads is over-provisioned instead);
 * - otherwise ceil(raw / typicalNthreads), as the fixed scheduler computes
 *   `ceil(cpu / Σnthreads · len(workers))`.
 */
export function correctedTarget(raw: number, ctx: TargetContext): number {
  const n = Math.max(0, Math.ceil(raw));
  if (!countsThreads(ctx.daskVersion)) return n;
  const current = ctx.workerNthreads.length;
  if (n < current) return n;
  if (current > 0 && n === 2 * current) return n;
  return Math.ceil(n / typicalNthreads(ctx));
}

export interface PerWorker {
  nthreads: number;
  memoryBytes: number;
}

export interface WorkerBounds {
  minimum: number;
  maximum: number;
  /** What set each bound, for reasons: "minimum_cores 6". */
  minimumFrom: string;
  maximumFrom: string;
}

/**
 * Worker-count bounds like SpecCluster.adapt (deploy/spec.py:645-662): minimum is the
 * largest of minimum, ceil(minimum_cores / nthreads), ceil(minimum_memory / memory);
 * maximum the smallest of maximum, floor(maximum_cores / nthreads),
 * floor(maximum_memory / memory). A worker without a memory limit (0) cannot be
 * counted in bytes, so the memory bounds are skipped rather than divided by zero.
 */
export function workerBounds(spec: AdaptiveSpec, perWorker: PerWorker): WorkerBounds {
  const b: WorkerBounds = {
    minimum: spec.minimum,
    maximum: spec.maximum,
    minimumFrom: 'minimum',
    maximumFrom: 'maximum',
  };
  const threads = perWorker.nthreads > 0 ? perWorker.nthreads : undefined;
  const memory = perWorker.memoryBytes > 0 ? perWorker.memoryBytes : undefined;
  const lower = (n: number, from: string): void => {
    if (n > b.minimum) Object.assign(b, { minimum: n, minimumFrom: from });
  };
  const upper = (n: number, from: string): void => {
    if (n < b.maximum) Object.assign(b, { maximum: n, maximumFrom: from });
  };
  if (threads && spec.minimumCores !== undefined)
    lower(Math.ceil(spec.minimumCores / threads), `minimum_cores ${spec.minimumCores}`);
  if (memory && spec.minimumMemory !== undefined)
    lower(Math.ceil(spec.minimumMemory / memory), `minimum_memory ${bytes(spec.minimumMemory)}`);
  if (threads && spec.maximumCores !== undefined)
    upper(Math.floor(spec.maximumCores / threads), `maximum_cores ${spec.maximumCores}`);
  if (memory && spec.maximumMemory !== undefined)
    upper(Math.floor(spec.maximumMemory / memory), `maximum_memory ${bytes(spec.maximumMemory)}`);
  return b;
}

export interface ClippedTarget {
  target: number;
  /** Set when a bound changed the target: "maximum_cores 5 (2 workers)". */
  reason?: string;
  bound?: 'minimum' | 'maximum';
}

/**
 * AdaptiveCore.safe_target (deploy/adaptive_core.py:158-167): cap at maximum first, then
 * raise to minimum — so a minimum above the maximum wins, as in Dask.
 */
export function clipTarget(target: number, bounds: AdaptiveSpec, perWorker: PerWorker): ClippedTarget {
  const b = workerBounds(bounds, perWorker);
  let n = target;
  let out: ClippedTarget = { target: n };
  if (n > b.maximum) {
    n = b.maximum;
    out = { target: n, bound: 'maximum', reason: `${b.maximumFrom} (${workers(n)})` };
  }
  if (n < b.minimum) {
    n = b.minimum;
    out = { target: n, bound: 'minimum', reason: `${b.minimumFrom} (${workers(n)})` };
  }
  return out;
}

function workers(n: number): string {
  return n === 1 ? '1 worker' : `${n} workers`;
}
