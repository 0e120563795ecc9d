// The control socket's methods: names, params (parsed here, on the controller's side,
// from what arrives on the wire) and result types. Commands take `ControlApi` as the
// client's type, the control endpoint implements one handler per entry.
import type { ControlClient } from '../../control/client.js';
import { method, noParams, paramsObject } from '../../control/methods.js';
import type { ScaleResult } from '../../cluster/scaling.js';
import type { TeardownResult } from '../../cluster/teardown.js';
import { UsageError } from '../../errors.js';
import type { AdaptiveSpec } from '../../config/spec.js';
import type { StatusJson } from './status.js';

/** What the flags say; unset keys keep the host file's `adaptive:` or Dask's defaults. */
export type AdaptParams = { off: true } | { off?: false; dryRun: boolean; spec: Partial<Record<keyof AdaptiveSpec, number | null>> };

export interface AdaptReply {
  enabled: boolean;
  spec?: AdaptiveSpec;
  dryRun?: { target: number; decision: string; reason: string };
  /** What was asked but does not apply as asked (e.g. target_duration on a running scheduler). */
  warnings?: string[];
}

export const controlApi = {
  status: method<undefined, StatusJson>(noParams),
  scale: method<{ n: number }, ScaleResult & { adaptiveOff?: true }>(parseScale),
  adapt: method<AdaptParams, AdaptReply>(parseAdapt),
  restart: method<{ name: string }, { restarted: string }>(parseRestart),
  down: method<undefined, TeardownResult>(noParams),
  /** Events from now on; the result is the status to show before them. */
  subscribe: method<undefined, StatusJson>(noParams),
};

export type ControlApi = typeof controlApi;
/** A command's connection to a controller. */
export type ControlApiClient = ControlClient<ControlApi>;

function parseScale(raw: unknown): { n: number } {
  const { n } = paramsObject(raw, 'scale');
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) throw new UsageError(`scale: expected a whole number ≥ 0, got ${JSON.stringify(n)}`);
  return { n };
}

function parseRestart(raw: unknown): { name: string } {
  const { name } = paramsObject(raw, 'restart');
  if (typeof name !== 'string' || !name) throw new UsageError(`restart: expected a worker name, got ${JSON.stringify(name)}`);
  return { name };
}

/** The adaptive settings `adapt` may change: numbers, or null for "back to the default". */
const ADAPT_KEYS = new Set([
  'minimum', 'maximum', 'intervalMs', 'waitCount', 'targetDurationMs',
  'minimumCores', 'maximumCores', 'minimumMemory', 'maximumMemory',
]);

function parseAdapt(raw: unknown): AdaptParams {
  const p = paramsObject(raw, 'adapt');
  if (p.off === true) return { off: true };
  const spec = paramsObject(p.spec ?? {}, 'adapt spec');
  for (const [k, v] of Object.entries(spec)) {
    if (!ADAPT_KEYS.has(k)) throw new UsageError(`adapt: unknown setting "${k}"`);
    if (v !== null && (typeof v !== 'number' || !Number.isFinite(v) || v < 0)) {
      throw new UsageError(`adapt: ${k} must be a number ≥ 0 or null, got ${JSON.stringify(v)}`);
    }
  }
  return { dryRun: p.dryRun === true, spec: spec as Extract<AdaptParams, { spec: unknown }>['spec'] };
}
