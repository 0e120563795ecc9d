import { describe, expect, it } from 'vitest';
import { DecisionLog, type DecisionLogEntry } from '../../../src/adaptive/decision-log.js';

const e = (time: number, over: Partial<DecisionLogEntry> = {}): DecisionLogEntry => ({
  time,
  target: time,
  current: 2,
  decision: 'none',
  reason: 'at target',
  ...over,
});

describe('DecisionLog', () => {
  it('keeps the last N entries, oldest first, and counts what it dropped', () => {
    const log = new DecisionLog(3);
    for (let t = 1; t <= 5; t++) log.push(e(t));
    expect(log.size).toBe(3);
    expect(log.dropped).toBe(2);
    expect(log.recent().map((r) => r.time)).toEqual([3, 4, 5]);
  });
  it('bounds at 200 by default', () => {
    const log = new DecisionLog();
    for (let t = 0; t < 250; t++) log.push(e(t));
    expect(log.size).toBe(200);
    expect(log.recent(1)[0]!.time).toBe(249);
    expect(log.recent()[0]!.time).toBe(50);
  });
  it('recent(n) gives the last n, clamped', () => {
    const log = new DecisionLog(10);
    for (let t = 1; t <= 4; t++) log.push(e(t));
    expect(log.recent(2).map((r) => r.time)).toEqual([3, 4]);
    expect(log.recent(0)).toEqual([]);
    expect(log.recent(99).map((r) => r.time)).toEqual([1, 2, 3, 4]);
  });
  it('folds a repeated decision into one record with a count, keeping the latest raw target', () => {
    const log = new DecisionLog(3);
    log.push(e(1, { target: 2, rawTarget: 5, reason: 'waiting 1/3 to retire d' }));
    log.push(e(2, { target: 2, rawTarget: 5, reason: 'waiting 2/3 to retire d' }));
    for (let t = 3; t <= 6; t++) log.push(e(t, { target: 2, rawTarget: t, reason: 'minimum reached (2 workers)' }));
    expect(log.recent()).toEqual([
      {
        time: 1,
        target: 2,
        current: 2,
        decision: 'none',
        reason: 'waiting 1/3 to retire d',
        rawTarget: 5,
        count: 1,
        lastTime: 1,
      },
      {
        time: 2,
        target: 2,
        current: 2,
        decision: 'none',
        reason: 'waiting 2/3 to retire d',
        rawTarget: 5,
        count: 1,
        lastTime: 2,
      },
      {
        time: 3,
        target: 2,
        current: 2,
        decision: 'none',
        reason: 'minimum reached (2 workers)',
        rawTarget: 6,
        count: 4,
        lastTime: 6,
      },
    ]);
  });
  it('serializes to JSON for status --json', () => {
    const log = new DecisionLog(2);
    log.push(e(1, { decision: 'up', reason: 'start 1: target 3 > 2' }));
    log.push(e(2, { decision: 'down', reason: 'retire n1-0' }));
    log.push(e(3));
    expect(JSON.parse(JSON.stringify({ adaptive: { log } }))).toEqual({
      adaptive: {
        log: {
          capacity: 2,
          dropped: 1,
          entries: [
            { time: 2, target: 2, current: 2, decision: 'down', reason: 'retire n1-0', count: 1, lastTime: 2 },
            { time: 3, target: 3, current: 2, decision: 'none', reason: 'at target', count: 1, lastTime: 3 },
          ],
        },
      },
    });
  });
  it('hands out copies', () => {
    const log = new DecisionLog(2);
    log.push(e(1));
    log.recent()[0]!.reason = 'changed';
    expect(log.recent()[0]!.reason).toBe('at target');
  });
  it('rejects a capacity below 1', () => {
    expect(() => new DecisionLog(0)).toThrow(RangeError);
  });
});
