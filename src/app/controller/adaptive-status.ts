// The adaptive loop as `status --json` and the dashboard show it: its bounds, its last
// target and change, its recent steps (the loop, in adaptive/, knows no status document).
import type { AdaptiveLoop } from '../../adaptive/adaptive-loop.js';
import type { AdaptiveStatus } from '../../control/status-document.js';

export function adaptiveStatus(loop: AdaptiveLoop): AdaptiveStatus {
  const { spec } = loop;
  const iso = (t: number) => new Date(t).toISOString();
  const entries = loop.log.recent(20);
  // The last change (up or down), not the last step: a step that changed nothing is in
  // the log, and "last: none (waiting …)" read as if something were about to happen.
  const last = loop.log
    .recent()
    .filter((e) => e.decision !== 'none')
    .pop();
  return {
    enabled: loop.enabled,
    minimum: spec.minimum,
    maximum: Number.isFinite(spec.maximum) ? spec.maximum : null,
    intervalMs: spec.intervalMs,
    waitCount: spec.waitCount,
    targetDurationMs: spec.targetDurationMs,
    ...pick(spec, ['minimumCores', 'maximumCores', 'minimumMemory', 'maximumMemory']),
    target: loop.target,
    unmet: loop.unmetLines,
    lastDecision: last ? { decision: last.decision, reason: last.reason, time: iso(last.time) } : null,
    log: entries.map((e) => ({
      time: iso(e.time),
      target: e.target,
      current: e.current,
      decision: e.decision,
      reason: e.reason,
      count: e.count,
    })),
  };
}

/** The keys of `o` that are set. */
function pick<T extends object, K extends keyof T>(o: T, keys: readonly K[]): Partial<Pick<T, K>> {
  return Object.fromEntries(keys.filter((k) => o[k] !== undefined).map((k) => [k, o[k]])) as Partial<Pick<T, K>>;
}
