// The control methods' params parsers: what a controller accepts from its socket.
import { describe, expect, it } from 'vitest';
import { controlApi } from '../../../../src/app/controller/control-api.js';
import { UsageError } from '../../../../src/errors.js';

function refusal(f: () => unknown): UsageError {
  try {
    f();
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return err as UsageError;
  }
  throw new Error('accepted');
}

describe('control API params', () => {
  it('scale takes a whole number ≥ 0 and nothing else', () => {
    expect(controlApi.scale.parse({ n: 3 })).toEqual({ n: 3 });
    expect(controlApi.scale.parse({ n: 0, extra: 1 })).toEqual({ n: 0 });
    for (const bad of [{ n: -1 }, { n: 1.5 }, { n: '3' }, {}, null, 3, [3]]) {
      expect(refusal(() => controlApi.scale.parse(bad)).exitCode).toBe(2);
    }
    expect(refusal(() => controlApi.scale.parse({ n: '3' })).message).toBe(
      'scale: expected a whole number ≥ 0, got "3"',
    );
  });

  it('restart takes a worker name', () => {
    expect(controlApi.restart.parse({ name: 'w1' })).toEqual({ name: 'w1' });
    expect(refusal(() => controlApi.restart.parse({ name: '' })).message).toMatch(/expected a worker name/);
    expect(refusal(() => controlApi.restart.parse(undefined)).message).toMatch(
      /expected an object of params, got nothing/,
    );
  });

  it('adapt takes off, or numbers/null for known settings', () => {
    expect(controlApi.adapt.parse({ off: true })).toEqual({ off: true });
    expect(controlApi.adapt.parse({ dryRun: true, spec: { minimum: 1, maximum: null } })).toEqual({
      dryRun: true,
      spec: { minimum: 1, maximum: null },
    });
    expect(controlApi.adapt.parse({})).toEqual({ dryRun: false, spec: {} });
    expect(refusal(() => controlApi.adapt.parse({ spec: { groups: 1 } })).message).toBe(
      'adapt: unknown setting "groups"',
    );
    expect(refusal(() => controlApi.adapt.parse({ spec: { minimum: -2 } })).message).toMatch(
      /minimum must be a whole number ≥ 0 or null/,
    );
    expect(refusal(() => controlApi.adapt.parse({ spec: { waitCount: '3' } })).message).toMatch(/waitCount/);
  });

  // From Python (adapt(minimum=1.5), adapt(wait_count=0)) these reached the controller:
  // minimum 1.5 flapped a worker up and down every step, and waitCount 0 went into the
  // state file, which every command then refused ("not a valid state file"), the
  // controller still running. They are refused as the CLI's flags refuse them.
  it('adapt refuses a fraction of a worker, a wait-count of 0 and a duration no timer can wait', () => {
    const bad: [Record<string, unknown>, string][] = [
      [{ minimum: 1.5 }, 'adapt: minimum must be a whole number ≥ 0 or null, got 1.5'],
      [{ maximum: 2.5 }, 'adapt: maximum must be a whole number ≥ 0 or null, got 2.5'],
      [{ waitCount: 0 }, 'adapt: waitCount must be a whole number ≥ 1 or null, got 0'],
      [{ waitCount: 2.5 }, 'adapt: waitCount must be a whole number ≥ 1 or null, got 2.5'],
      [{ minimumCores: 0.5 }, 'adapt: minimumCores must be a whole number ≥ 0 or null, got 0.5'],
      [{ maximumCores: 1.5 }, 'adapt: maximumCores must be a whole number ≥ 0 or null, got 1.5'],
      [
        { intervalMs: 2 ** 31 },
        'adapt: intervalMs must be a number of milliseconds from 0 to 2147483647 or null, got 2147483648',
      ],
      [
        { targetDurationMs: 1e12 },
        'adapt: targetDurationMs must be a number of milliseconds from 0 to 2147483647 or null, got 1000000000000',
      ],
      [{ maximumMemory: -1 }, 'adapt: maximumMemory must be a number ≥ 0 or null, got -1'],
    ];
    for (const [spec, message] of bad) expect(refusal(() => controlApi.adapt.parse({ spec })).message).toBe(message);
    const fine = { minimum: 2, maximum: null, waitCount: 1, intervalMs: 1500.5, minimumMemory: 1.5e9, minimumCores: 4 };
    expect(controlApi.adapt.parse({ spec: fine })).toEqual({ dryRun: false, spec: fine });
  });

  it('status, down and subscribe ignore params', () => {
    for (const m of [controlApi.status, controlApi.down, controlApi.subscribe])
      expect(m.parse({ anything: 1 })).toBeUndefined();
  });

  it('lease takes a grace in ms up to a day; placeable a whole number like scale', () => {
    expect(controlApi.lease.parse({ graceMs: 120_000 })).toEqual({ graceMs: 120_000 });
    for (const bad of [{ graceMs: -1 }, { graceMs: 86_400_001 }, { graceMs: '2m' }, {}]) {
      expect(refusal(() => controlApi.lease.parse(bad)).message).toMatch(/^lease: graceMs must be/);
    }
    expect(controlApi.placeable.parse({ n: 4 })).toEqual({ n: 4 });
    expect(refusal(() => controlApi.placeable.parse({ n: -1 })).message).toBe(
      'placeable: expected a whole number ≥ 0, got -1',
    );
    expect(controlApi.hello.parse({ anything: 1 })).toBeUndefined();
  });
});
