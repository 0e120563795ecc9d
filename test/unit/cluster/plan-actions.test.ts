import { describe, expect, it } from 'vitest';
import {
  desiredProcesses,
  plan,
  workerName,
  type DesiredProcess,
  type ObservedProcess,
} from '../../../src/cluster/plan-actions.js';
import { testSpec } from '../config/spec-fixture.js';

const d = (name: string, host: string, role: 'scheduler' | 'worker' = 'worker'): DesiredProcess => ({
  name,
  host,
  role,
});
const o = (name: string, host: string, state: ObservedProcess['state']): ObservedProcess => ({
  name,
  host,
  role: 'worker',
  state,
});

describe('desiredProcesses', () => {
  it('puts the scheduler first and nworkers named workers on every worker host', () => {
    const spec = testSpec({ workers: ['n1', 'n2'], nworkers: 2 });
    expect(desiredProcesses(spec).map((p) => `${p.role}:${p.name}@${p.host}`)).toEqual([
      'scheduler:scheduler@n0',
      'worker:n1-0@n1',
      'worker:n1-1@n1',
      'worker:n2-0@n2',
      'worker:n2-1@n2',
    ]);
  });
  it('names workers <host>-<i>', () => {
    expect(workerName('10.0.0.3', 4)).toBe('10.0.0.3-4');
  });
});

describe('plan', () => {
  it('starts everything on an empty cluster', () => {
    const actions = plan([d('scheduler', 'n0', 'scheduler'), d('n1-0', 'n1')], []);
    expect(actions).toEqual([
      { kind: 'start', process: d('scheduler', 'n0', 'scheduler') },
      { kind: 'start', process: d('n1-0', 'n1') },
    ]);
  });
  it('does nothing when observed matches desired', () => {
    expect(plan([d('n1-0', 'n1')], [o('n1-0', 'n1', 'running')])).toEqual([]);
  });
  it('never counts a starting worker as missing', () => {
    expect(plan([d('n1-0', 'n1')], [o('n1-0', 'n1', 'starting')])).toEqual([]);
  });
  it('restarts an exited (crashed) desired process', () => {
    expect(plan([d('n1-0', 'n1')], [o('n1-0', 'n1', 'exited')])).toEqual([{ kind: 'start', process: d('n1-0', 'n1') }]);
  });
  it('stops an extra process once, not again while it is stopping', () => {
    expect(plan([], [o('n1-0', 'n1', 'running')])).toEqual([
      { kind: 'stop', name: 'n1-0', host: 'n1', reason: 'not-desired' },
    ]);
    expect(plan([], [o('n1-0', 'n1', 'stopping')])).toEqual([]);
  });
  it('starts nothing on an unusable host', () => {
    expect(plan([d('n1-0', 'n1'), d('n2-0', 'n2')], [], new Set(['n1']))).toEqual([
      { kind: 'start', process: d('n2-0', 'n2') },
    ]);
  });
});
