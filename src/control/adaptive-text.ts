// Adaptive state as text, one way for `status` and the dashboard: "on 1..2, target 1;
// last: up at 13:02:11 (start 1: target 1 > 0)". Off, the bounds and target are not in
// force, so they are not said beside a worker count they no longer govern.
import type { AdaptiveStatus } from './status-document.js';

/** "; last: up at 13:02:11 (reason)": the last change, with its time (UTC). */
export function lastChangeText(a: Pick<AdaptiveStatus, 'lastDecision'>): string {
  const l = a.lastDecision;
  return l ? `; last: ${l.decision} at ${l.time.slice(11, 19)} (${l.reason})` : '';
}

/** "on 1..2, target 1" or "off"; `more` follows the bounds (cores, memory). */
export function adaptiveStateText(a: AdaptiveStatus, more = ''): string {
  if (!a.enabled) return 'off';
  return `on ${a.minimum}..${a.maximum ?? '∞'}${more}, target ${a.target ?? '-'}`;
}
