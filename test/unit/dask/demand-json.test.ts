import { describe, expect, it } from 'vitest';
import { parseDemand } from '../../../src/dask/demand-json.js';
import { SchedulerResponseError } from '../../../src/dask/scheduler-errors.js';
import { schedulerPreloadArgv } from '../../../src/dask/scheduler-preload.js';

const req = { method: 'GET', path: '/api/v1/sshcluster/demand' };

describe('parseDemand', () => {
  it('keeps well-formed groups and workers, drops the rest', () => {
    const d = parseDemand(req, {
      version: 1,
      distributed: '2024.12.1',
      groups: [
        { resources: { GPU: 1 }, unrunnable: 3, waiting: 2.9, running: -1, duration: 4.5, unknown: 'x' },
        { resources: {}, unrunnable: 5 },
        'junk',
      ],
      workers: [
        { name: 7, address: 'tcp://a:1', nthreads: 2, resources: { GPU: 2, bad: 'x' }, used: {} },
        { name: 'no-address' },
      ],
    });
    expect(d.groups).toEqual([
      { resources: { GPU: 1 }, unrunnable: 3, waiting: 2, running: 0, durationS: 4.5, unknown: 0 },
    ]);
    expect(d.workers).toEqual([{ name: '7', address: 'tcp://a:1', nthreads: 2, resources: { GPU: 2 }, used: {} }]);
  });

  it("keeps the scheduler's pid and its ancestors' that are positive integers, at most 16 (an older preload has none)", () => {
    expect(
      parseDemand(req, { version: 1, pids: [4321, 'x', 0, -5, 77, Infinity], groups: [], workers: [] }).pids,
    ).toEqual([4321, 77]);
    expect(
      parseDemand(req, { version: 1, pids: Array.from({ length: 40 }, (_, i) => i + 2), groups: [], workers: [] }).pids,
    ).toHaveLength(16);
    for (const pids of [undefined, 7, 'x', [], [0, 'y']])
      expect(parseDemand(req, { version: 1, pids, groups: [], workers: [] })).not.toHaveProperty('pids');
  });

  it('keeps plain_pending as a count: 0 when absent (an older preload) or not a count', () => {
    const plain = (v: unknown) =>
      parseDemand(req, { version: 1, groups: [], workers: [], ...(v === undefined ? {} : { plain_pending: v }) })
        .plainPending;
    expect([plain(3), plain(2.7), plain(undefined), plain(-1), plain('4'), plain(Infinity)]).toEqual([
      3, 2, 0, 0, 0, 0,
    ]);
  });

  it('refuses another version of the preload instead of guessing its fields', () => {
    expect(() => parseDemand(req, { version: 2, groups: [], workers: [] })).toThrow(
      /demand version 2, this sshcluster reads 1/,
    );
    expect(() => parseDemand(req, { version: 1 })).toThrow(SchedulerResponseError);
  });

  it('bounds what it keeps from an untrusted answer', () => {
    const many = Array.from({ length: 1000 }, (_, i) => ({ resources: { [`R${i}`]: 1 }, unrunnable: 1 }));
    expect(parseDemand(req, { version: 1, groups: many, workers: [] }).groups).toHaveLength(256);
  });
});

describe('schedulerPreloadArgv', () => {
  it('passes a .py path or module text, and refuses what Dask would read as a module name', () => {
    expect(schedulerPreloadArgv('/x/scheduler_demand.py')).toEqual(['--preload', '/x/scheduler_demand.py']);
    expect(schedulerPreloadArgv('import os\n')).toEqual(['--preload', 'import os\n']);
    expect(() => schedulerPreloadArgv('scheduler_demand')).toThrow(/expected a .py path/);
  });
});
