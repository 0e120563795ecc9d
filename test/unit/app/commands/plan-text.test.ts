// What `plan` and `apply` print before acting: one line per host, then how to carry it
// out (plan) or that it is being carried out (apply).
import { describe, expect, it } from 'vitest';
import { planText } from '../../../../src/app/commands/plan-text.js';
import type { SpecDiff } from '../../../../src/cluster/changes/spec-diff.js';

const diff: SpecDiff = {
  recreate: [],
  hostsAdded: ['c'],
  hostsRemoved: ['b'],
  counts: [
    { host: 'c', from: 0, to: 2 },
    { host: 'b', from: 1, to: 0 },
  ],
  restart: [{ host: 'a', workers: ['a-0'], why: ['worker_options.nthreads 1 → 2'] }],
  updated: [{ host: 'd', why: ['worker_options.resources {} → GPU=1'] }],
  maxWorkers: [],
  adaptive: { to: { minimum: 0, maximum: 3, intervalMs: 1000, waitCount: 3, targetDurationMs: 5000 } },
};

describe('planText', () => {
  it('ends with how to carry it out for plan, and with what it does now for apply', () => {
    const plan = planText('live', 'h.yaml', diff);
    expect(plan.split('\n').slice(0, -2)).toEqual([
      'live: h.yaml differs from the running cluster:',
      '  + host c: 2 worker(s)',
      '  - host b: drain 1 worker(s) (retired through the scheduler, data moved), then leave it',
      '  ~ host a: rolling restart of 1 worker(s): worker_options.nthreads 1 → 2',
      // helper-26's trial: a change on a host with no worker, and adaptive: in a file for a
      // cluster whose adaptive is off, were "nothing to apply" or applied and ignored.
      '  ~ host d: no worker runs there; the next ones start with worker_options.resources {} → GPU=1',
      "  ~ adaptive: on, with the file's settings (it is off now)",
      'Plan: 1 host(s) to add, 1 to drain, 1 worker(s) to restart.',
    ]);
    expect(plan.endsWith('\nsshcluster apply h.yaml carries it out\n')).toBe(true);
    expect(
      planText('live', 'h.yaml', diff, { applying: true }).endsWith('worker(s) to restart.\nApplying it …\n'),
    ).toBe(true);
  });

  it('points at --recreate when a running scheduler cannot take the change, from apply too', () => {
    const text = planText(
      'live',
      'h.yaml',
      { ...diff, recreate: ['scheduler_options.port 8786 → 8800'] },
      { applying: true },
    );
    expect(text).toContain('  ! needs a new cluster: scheduler_options.port 8786 → 8800\n');
    expect(text).toContain('sshcluster apply --recreate h.yaml stops the cluster');
    expect(text).not.toContain('Applying it');
  });

  it("says the file is held against the cluster's record, and how to go on, when its controller is gone", () => {
    expect(
      planText(
        'live',
        'h.yaml',
        { recreate: [], hostsAdded: [], hostsRemoved: [], counts: [], restart: [], updated: [], maxWorkers: [] },
        { recorded: true },
      ),
    ).toBe(
      "live: h.yaml matches the cluster as last recorded; nothing to apply\nlive's controller is not running: sshcluster up h.yaml --detach starts one that takes the cluster over as it runs\n",
    );
    const text = planText('live', 'h.yaml', diff, { recorded: true });
    expect(text.startsWith('live: h.yaml differs from the cluster as last recorded:\n')).toBe(true);
    expect(
      text.endsWith(
        "worker(s) to restart.\nlive's controller is not running: sshcluster up h.yaml --detach starts one that takes the cluster over as it runs, then sshcluster apply h.yaml carries this out\n",
      ),
    ).toBe(true);
    expect(text).not.toContain('running cluster');
  });

  it("says the scheduler's host stays when it stops being a worker host, and names it when it becomes one", () => {
    const removed = planText(
      'live',
      'h.yaml',
      {
        recreate: [],
        hostsAdded: [],
        hostsRemoved: ['s'],
        counts: [{ host: 's', from: 1, to: 0 }],
        restart: [],
        updated: [],
        maxWorkers: [],
      },
      { scheduler: 's' },
    );
    expect(removed).toContain(
      '  - host s (runs the scheduler): drain 1 worker(s) (retired through the scheduler, data moved); the host stays for the scheduler\n',
    );
    const added = planText(
      'live',
      'h.yaml',
      {
        recreate: [],
        hostsAdded: ['s'],
        hostsRemoved: [],
        counts: [{ host: 's', from: 0, to: 2 }],
        restart: [],
        updated: [],
        maxWorkers: [],
      },
      { scheduler: 's' },
    );
    expect(added).toContain('  + host s (runs the scheduler): 2 worker(s)\n');
  });

  it('shows a changed max_workers as a change (room, no restart)', () => {
    const text = planText('live', 'h.yaml', {
      recreate: [],
      hostsAdded: [],
      hostsRemoved: [],
      counts: [],
      restart: [],
      updated: [],
      maxWorkers: [{ host: 'a', from: 1, to: 3 }],
    });
    expect(text).toContain(
      'live: h.yaml differs from the running cluster:\n  ~ host a: max_workers 1 → 3 (room for scale and adaptive; nothing restarts)\n',
    );
  });

  it('says a removed host without workers is left, not drained of 0', () => {
    const text = planText('live', 'h.yaml', {
      recreate: [],
      hostsAdded: [],
      hostsRemoved: ['gone'],
      counts: [],
      restart: [],
      updated: [],
      maxWorkers: [],
    });
    expect(text).toContain('  - host gone: no workers there; leave it\n');
  });
});
