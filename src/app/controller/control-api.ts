// The control socket's methods: names, params (parsed here, on the controller's side,
// from what arrives on the wire) and result types. Commands take `ControlApi` as the
// client's type, the control endpoint implements one handler per entry.
import type { ControlClient } from '../../control/client.js';
import { method, noParams, paramsObject } from '../../control/methods.js';
import type { ScaleResult } from '../../cluster/placement/scaling.js';
import type { TeardownResult } from '../../cluster/start-stop/teardown.js';
import { UsageError } from '../../errors.js';
import type { AdaptiveSpec, ClusterSpec } from '../../config/spec.js';
import { MAX_DURATION_MS } from '../../config/durations.js';
import type { DrainResult } from '../../cluster/changes/desired-change.js';
import type { RollResult } from '../../cluster/changes/rolling.js';
import type { ApplyReply, RollParams } from '../../cluster/changes/cluster-changes.js';
import type { StatusJson } from './status.js';
import type { ProcessLine } from './recent-lines.js';

/** What the flags say; unset keys keep the host file's `adaptive:` or Dask's defaults. */
export type AdaptParams =
  { off: true } | { off?: false; dryRun: boolean; spec: Partial<Record<keyof AdaptiveSpec, number | null>> };

export interface AdaptReply {
  enabled: boolean;
  spec?: AdaptiveSpec;
  dryRun?: { target: number; decision: string; reason: string };
  /** What was asked but does not apply as asked (e.g. target_duration on a running scheduler). */
  warnings?: string[];
}

export interface SubscribeReply {
  status: StatusJson;
  /** The newest process lines, oldest first; the live ones continue from the last. */
  recentLines: ProcessLine[];
}

export interface HelloReply {
  /** The control protocol's major (version.ts); a client refuses one it does not speak. */
  protocol: number;
  /** The controller's sshcluster version. */
  version: string;
}

export interface LeaseReply {
  held: number;
  graceMs: number;
}

export const controlApi = {
  hello: method<undefined, HelloReply>(noParams),
  status: method<undefined, StatusJson>(noParams),
  /** `force`: retire even workers whose results the scheduler cannot move (they are lost). */
  scale: method<{ n: number; force?: boolean }, ScaleResult & { adaptiveOff?: true }>(parseScale),
  adapt: method<AdaptParams, AdaptReply>(parseAdapt),
  restart: method<{ name: string }, { restarted: string }>(parseRestart),
  down: method<undefined, TeardownResult>(noParams),
  apply: method<{ spec: ClusterSpec } & RollParams, ApplyReply>(parseApply),
  /** `force`: stop the drained hosts' workers even if the scheduler cannot move their results. */
  drain: method<{ hosts: string[]; undrain: boolean; force?: boolean }, DrainResult>(parseDrain),
  /** A rolling restart of these workers (all when none are named). */
  roll: method<{ workers?: string[] } & RollParams, RollResult>(parseRoll),
  /** Events from now on; the result is what to show before them: the status and the newest lines. */
  subscribe: method<undefined, SubscribeReply>(noParams),
  /** What `scale n` would place, changing nothing (the reason when fewer). */
  placeable: method<{ n: number }, ScaleResult>((raw) => parseScale(raw, 'placeable')),
  /**
   * The owner lease (owner-lease.ts), held by this connection: when it closes without
   * `release`, the cluster goes down after graceMs.
   */
  lease: method<{ graceMs: number }, LeaseReply>(parseLease),
  release: method<undefined, { released: boolean }>(noParams),
};

export type ControlApi = typeof controlApi;
/** A command's connection to a controller. */
export type ControlApiClient = ControlClient<ControlApi>;

function parseScale(raw: unknown, name = 'scale'): { n: number; force?: boolean } {
  const { n, force } = paramsObject(raw, name);
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0)
    throw new UsageError(`${name}: expected a whole number ≥ 0, got ${JSON.stringify(n)}`);
  return { n, ...(force === true ? { force: true } : {}) };
}

/** Up to a day: a lease is for a process that died, not a cluster to keep for a week. */
function parseLease(raw: unknown): { graceMs: number } {
  const { graceMs } = paramsObject(raw, 'lease');
  if (typeof graceMs !== 'number' || !Number.isFinite(graceMs) || graceMs < 0 || graceMs > 86_400_000) {
    throw new UsageError(
      `lease: graceMs must be a number of milliseconds from 0 to 86400000, got ${JSON.stringify(graceMs)}`,
    );
  }
  return { graceMs };
}

function parseRestart(raw: unknown): { name: string } {
  const { name } = paramsObject(raw, 'restart');
  if (typeof name !== 'string' || !name)
    throw new UsageError(`restart: expected a worker name, got ${JSON.stringify(name)}`);
  return { name };
}

/** The adaptive settings `adapt` may change: numbers, or null for "back to the default". */
const ADAPT_KEYS = new Set([
  'minimum',
  'maximum',
  'intervalMs',
  'waitCount',
  'targetDurationMs',
  'minimumCores',
  'maximumCores',
  'minimumMemory',
  'maximumMemory',
]);

function parseAdapt(raw: unknown): AdaptParams {
  const p = paramsObject(raw, 'adapt');
  if (p.off === true) {
    // Dropping them would do less (or, for a dry run, more) than was asked.
    if (p.dryRun === true || (p.spec !== undefined && Object.keys(paramsObject(p.spec, 'adapt spec')).length))
      throw new UsageError('adapt: off takes no spec and no dryRun');
    return { off: true };
  }
  const spec = paramsObject(p.spec ?? {}, 'adapt spec');
  for (const [k, v] of Object.entries(spec)) {
    if (!ADAPT_KEYS.has(k)) throw new UsageError(`adapt: unknown setting "${k}"`);
    const refused = v === null ? undefined : adaptValueRefusal(k, v);
    if (refused) throw new UsageError(`adapt: ${k} must be ${refused} or null, got ${JSON.stringify(v)}`);
  }
  return { dryRun: p.dryRun === true, spec: spec as Extract<AdaptParams, { spec: unknown }>['spec'] };
}

/**
 * What a setting must be, when v is not that: as the CLI's flags and the state file have
 * them (a count of workers or threads is whole, a duration one a timer can wait), so no
 * client of the socket (the Python package) sets what the state file would refuse.
 */
function adaptValueRefusal(k: string, v: unknown): string | undefined {
  const n = typeof v === 'number' && Number.isFinite(v) ? v : NaN;
  switch (k) {
    case 'waitCount':
      return Number.isInteger(n) && n >= 1 ? undefined : 'a whole number ≥ 1';
    case 'intervalMs':
    case 'targetDurationMs':
      return n >= 0 && n <= MAX_DURATION_MS ? undefined : `a number of milliseconds from 0 to ${MAX_DURATION_MS}`;
    case 'minimumMemory':
    case 'maximumMemory':
      return n >= 0 ? undefined : 'a number ≥ 0';
    default: // minimum, maximum, minimumCores, maximumCores
      return Number.isInteger(n) && n >= 0 ? undefined : 'a whole number ≥ 0';
  }
}

function rollParams(p: Record<string, unknown>, name: string): RollParams {
  const { maxUnavailable, timeoutMs } = p;
  if (typeof maxUnavailable !== 'number' || !Number.isInteger(maxUnavailable) || maxUnavailable < 1) {
    throw new UsageError(`${name}: maxUnavailable must be a whole number ≥ 1, got ${JSON.stringify(maxUnavailable)}`);
  }
  if (typeof timeoutMs !== 'number' || !(timeoutMs > 0))
    throw new UsageError(`${name}: timeoutMs must be a number > 0, got ${JSON.stringify(timeoutMs)}`);
  return { maxUnavailable, timeoutMs, ...(p.force === true ? { force: true } : {}) };
}

function names(v: unknown, what: string): string[] {
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string' && x.length > 0))
    throw new UsageError(`${what}: expected a list of names, got ${JSON.stringify(v)}`);
  return v as string[];
}

/** The command built the spec from a host file the same user owns; its shape is checked, not re-validated. */
function parseApply(raw: unknown): { spec: ClusterSpec } & RollParams {
  const p = paramsObject(raw, 'apply');
  const spec = paramsObject(p.spec, 'apply spec');
  if (
    typeof spec.name !== 'string' ||
    !Array.isArray(spec.workerHosts) ||
    typeof spec.schedulerHost !== 'object' ||
    typeof spec.schedulerOptions !== 'object'
  ) {
    throw new UsageError('apply: the spec lacks name, schedulerHost, schedulerOptions or workerHosts');
  }
  return { spec: spec as unknown as ClusterSpec, ...rollParams(p, 'apply') };
}

function parseDrain(raw: unknown): { hosts: string[]; undrain: boolean; force?: boolean } {
  const p = paramsObject(raw, 'drain');
  return {
    hosts: names(p.hosts, 'drain hosts'),
    undrain: p.undrain === true,
    ...(p.force === true ? { force: true } : {}),
  };
}

function parseRoll(raw: unknown): { workers?: string[] } & RollParams {
  const p = paramsObject(raw, 'roll');
  return {
    ...(p.workers === undefined ? {} : { workers: names(p.workers, 'roll workers') }),
    ...rollParams(p, 'roll'),
  };
}
