import { describe, expect, it } from 'vitest';
import { droppedText, OutputBudget } from '../../../../src/app/transport/output-budget.js';

const limits = { linesPerS: 10, bytesPerS: 1_000, burstS: 2 };

function budget() {
  let t = 0;
  const b = new OutputBudget(limits, () => t);
  return { b, step: (ms: number) => (t += ms) };
}

describe('OutputBudget', () => {
  it('admits a burst, then drops and counts what is over it', () => {
    const { b } = budget();
    const kept = Array.from({ length: 50 }, () => b.admit(10)).filter(Boolean).length;
    expect(kept).toBe(20);
    expect(b.takeDropped()).toEqual({ lines: 30, bytes: 300, since: 0 });
    expect(b.takeDropped()).toBeUndefined();
  });

  it('refills at the configured rate', () => {
    const { b, step } = budget();
    for (let i = 0; i < 20; i++) b.admit(1);
    expect(b.admit(1)).toBe(false);
    step(500);
    const kept = Array.from({ length: 10 }, () => b.admit(1)).filter(Boolean).length;
    expect(kept).toBe(5);
  });

  it('limits bytes as well as lines', () => {
    const { b, step } = budget();
    expect(b.admit(1_500)).toBe(true);
    expect(b.admit(600)).toBe(false);
    expect(b.admit(500)).toBe(true);
    step(1_000);
    expect(b.admit(1_000)).toBe(true);
    expect(b.takeDropped()).toEqual({ lines: 1, bytes: 600, since: 0 });
  });

  it('says what it dropped', () => {
    const d = { lines: 1_234_567, bytes: 97 * 1024 * 1024, since: 0 };
    expect(
      droppedText('198.18.0.12-0', 'stdout', d, { linesPerS: 1_000, bytesPerS: 512 * 1024, burstS: 5 }, 10_000),
    ).toBe('198.18.0.12-0: 1.2 M lines of stdout dropped (97.0 MiB in 10 s; over 1,000 lines or 512 KiB a second)');
  });
});
