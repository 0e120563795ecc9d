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
      /minimum must be a number ≥ 0 or null/,
    );
    expect(refusal(() => controlApi.adapt.parse({ spec: { waitCount: '3' } })).message).toMatch(/waitCount/);
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
