// Adaptive wording that does not contradict itself (issue: "up (target 0, 1 now)",
// "last: none (waiting 2/3 …)", "adaptive off 1..2, target 1" beside 3 workers).
import { describe, expect, it } from 'vitest';
import { adaptiveStateText, lastChangeText } from '../../../src/control/adaptive-text.js';
import { decisionText } from '../../../src/events/plain-sink.js';
import type { AdaptiveStatus } from '../../../src/control/status-document.js';

const a = (o: Partial<AdaptiveStatus>): AdaptiveStatus =>
  ({
    enabled: true,
    minimum: 1,
    maximum: 2,
    intervalMs: 1000,
    waitCount: 3,
    targetDurationMs: 5000,
    target: 1,
    unmet: [],
    lastDecision: null,
    log: [],
    ...o,
  }) as AdaptiveStatus;

describe('adaptive text', () => {
  it('says only "off" when adaptive is off: its bounds and target govern nothing', () => {
    expect(adaptiveStateText(a({ enabled: false }))).toBe('off');
    expect(adaptiveStateText(a({}), ', cores 0..8')).toBe('on 1..2, cores 0..8, target 1');
  });

  it('says the last change with its time', () => {
    expect(
      lastChangeText(
        a({ lastDecision: { decision: 'up', reason: 'start 1: target 1 > 0', time: '2026-11-28T13:02:11.000Z' } }),
      ),
    ).toBe('; last: up at 13:02:11 (start 1: target 1 > 0)');
    expect(lastChangeText(a({}))).toBe('');
  });

  it('an up started by resource demand at a plain target of 0 says the counts before and after, not "target 0, 1 now"', () => {
    expect(
      decisionText({
        kind: 'adaptive-decision',
        decision: 'up',
        target: 0,
        current: 0,
        after: 1,
        reason: 'none; placed gpu +1',
      }),
    ).toBe('up 0 → 1 worker: none; placed gpu +1');
    expect(
      decisionText({ kind: 'adaptive-decision', decision: 'down', target: 1, current: 3, reason: 'retire w-2, w-3' }),
    ).toBe('down 3 → 1 worker: retire w-2, w-3');
  });
});
