// The adaptive policy: one step of Dask's AdaptiveCore.recommendations
// (deploy/adaptive_core.py:175-214) as a pure function, with its answer's shape:
// {status: 'up', n} (an absolute worker count), {status: 'down', workers} (names to
// retire) or {status: 'same'}. The loop fetches the target and the workers (inputs.ts
// orders the candidates), calls step(), applies the decision and keeps the returned
// state for the next step. One step at a time: the loop must not call step() while a
// decision is applied.
import type { AdaptiveSpec } from '../config/spec.js';
import type { DecisionKind, DecisionLogEntry } from './decision-log.js';
import { downCandidates, type AdaptiveWorker, type Floor } from './scale-down.js';
import { clipTarget, correctedTarget, type PerWorker } from './target.js';

export type { AdaptiveWorker } from './scale-down.js';

export interface AdaptiveInput {
  now: number;
  /** /api/v1/adaptive_target as returned (`workers` or `desired_workers`). */
  rawTarget: number;
  /** distributed.__version__ of the scheduler. */
  daskVersion: string;
  /**
   * The plan: every worker we want to exist, registered with the scheduler or not yet
   * (starting, or not launched). Retired workers leave it when the loop applies a "down".
   */
  workers: readonly AdaptiveWorker[];
  /** Names the scheduler would close (workers_to_close, attribute="name"), best first. */
  schedulerRecommends?: readonly string[];
  /** Threads and memory limit (bytes, 0 = none) of a worker we would start. */
  newWorker: PerWorker;
  /** Group minimums: workers they keep are no candidates (groupFloors). */
  floors?: readonly Floor[];
}

export interface AdaptiveState {
  /** Consecutive down recommendations per worker name (AdaptiveCore.close_counts). */
  closeCounts: ReadonlyMap<string, number>;
}

export const initialAdaptiveState: AdaptiveState = { closeCounts: new Map() };

export type AdaptiveDecision =
  { status: 'up'; n: number } | { status: 'down'; workers: string[] } | { status: 'same'; reason: string };

/** The decision log's word for a decision ('none' is what status --json has always said). */
export function decisionKind(d: AdaptiveDecision): DecisionKind {
  return d.status === 'same' ? 'none' : d.status;
}

export interface StepResult {
  state: AdaptiveState;
  decision: AdaptiveDecision;
  log: DecisionLogEntry;
}

export interface AdaptiveTarget {
  raw: number;
  /** In workers (see correctedTarget). */
  corrected: number;
  /** Corrected, then clipped to the bounds: what the plan should have. */
  target: number;
  bound?: 'minimum' | 'maximum';
  boundReason?: string;
}

/** The step's target, exposed so the loop can ask workers_to_close(target=…) first. */
export function adaptiveTarget(
  input: Pick<AdaptiveInput, 'rawTarget' | 'daskVersion' | 'workers' | 'newWorker'>,
  spec: AdaptiveSpec,
): AdaptiveTarget {
  const workerNthreads = input.workers.filter((w) => w.registered).map((w) => w.nthreads);
  const corrected = correctedTarget(input.rawTarget, {
    daskVersion: input.daskVersion,
    workerNthreads,
    defaultNthreads: input.newWorker.nthreads,
  });
  const clipped = clipTarget(corrected, spec, input.newWorker);
  const out: AdaptiveTarget = { raw: input.rawTarget, corrected, target: clipped.target };
  if (clipped.bound) Object.assign(out, { bound: clipped.bound, boundReason: clipped.reason });
  return out;
}

export function step(state: AdaptiveState, input: AdaptiveInput, spec: AdaptiveSpec): StepResult {
  const t = adaptiveTarget(input, spec);
  const current = input.workers.length;
  const entry = (decision: AdaptiveDecision, reason: string): StepResult['log'] => ({
    time: input.now,
    target: t.target,
    current,
    decision: decisionKind(decision),
    reason,
    rawTarget: input.rawTarget,
  });
  const reset = (decision: AdaptiveDecision, reason: string): StepResult => ({
    state: initialAdaptiveState,
    decision,
    log: entry(decision, reason),
  });

  if (t.target === current) {
    // "minimum reached (2 workers)", "maximum reached: maximum_cores 8 (4 workers)".
    const own = t.bound && t.boundReason?.startsWith(`${t.bound} (`);
    const reason = t.bound
      ? `${t.bound} reached${own ? t.boundReason!.slice(t.bound.length) : `: ${t.boundReason}`}`
      : 'at target';
    return reset({ status: 'same', reason }, reason);
  }
  if (t.target > current) {
    const decision: AdaptiveDecision = { status: 'up', n: t.target };
    return reset(
      decision,
      `start ${t.target - current}: target ${t.target} > ${current}${t.bound ? `, clipped to ${t.boundReason}` : ''}`,
    );
  }

  // Load-driven scale-down leaves busy workers alone; a plan above the maximum bound
  // (the user tightened it) is brought down even if that means retiring busy workers.
  const overMaximum = t.bound === 'maximum';
  const picked = downCandidates(input.workers, current - t.target, input.schedulerRecommends, {
    allowBusy: overMaximum,
    floors: input.floors,
  });
  const counts = new Map<string, number>();
  const firm: string[] = [];
  const waiting: { name: string; count: number }[] = [];
  for (const name of picked.names) {
    const count = (state.closeCounts.get(name) ?? 0) + 1;
    if (count >= spec.waitCount) firm.push(name);
    else {
      counts.set(name, count);
      waiting.push({ name, count });
    }
  }
  // Unseen names drop out of counts, as do the firmly closed (adaptive_core.py:207-209).
  const next: AdaptiveState = { closeCounts: counts };
  const waitNote = waitingReason(waiting, spec.waitCount);
  const keptNote = picked.kept.length
    ? `kept by the minimum: ${picked.kept.map((k) => `${k.name} (${k.reason})`).join(', ')}`
    : undefined;
  const notes = [waitNote, keptNote, picked.blocked, t.bound ? `clipped to ${t.boundReason}` : undefined].filter(
    (s): s is string => !!s,
  );

  if (firm.length > 0) {
    const decision: AdaptiveDecision = { status: 'down', workers: firm };
    const what = firm.map((n) => (picked.notArrived.has(n) ? `${n} (not arrived)` : n)).join(', ');
    return { state: next, decision, log: entry(decision, [`retire ${what}`, ...notes].join('; ')) };
  }
  const reason = notes.length > 0 ? notes.join('; ') : 'no worker to close';
  const decision: AdaptiveDecision = { status: 'same', reason };
  return { state: next, decision, log: entry(decision, reason) };
}

function waitingReason(waiting: readonly { name: string; count: number }[], waitCount: number): string | undefined {
  if (waiting.length === 0) return undefined;
  const k = Math.max(...waiting.map((w) => w.count));
  return `waiting ${k}/${waitCount} to retire ${waiting.map((w) => w.name).join(', ')}`;
}
