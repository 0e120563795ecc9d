import { describe, expect, it } from 'vitest';
import { ndjsonSink, plainLine } from '../../../src/events/plain-sink.js';

describe('plain sink', () => {
  it('prefixes process lines with their source as logs and the dashboard name it', () => {
    expect(plainLine({ kind: 'process-line', host: 'n1', name: 'n1-0', stream: 'stderr', line: 'hello' })).toBe(
      'n1-0 │ hello',
    );
    expect(plainLine({ kind: 'process-line', host: 'n0', name: 'scheduler', stream: 'stderr', line: 'hi' })).toBe(
      'n0/scheduler │ hi',
    );
  });
  it('ends start-up with the scheduler address, dashboard and the env line', () => {
    const text = plainLine({
      kind: 'cluster-up',
      name: 'lab',
      schedulerAddress: 'tcp://n0:8786',
      dashboardUrl: 'http://n0:8787/status',
      workers: [{ name: 'a', address: 'x' }],
      failedHosts: ['n3'],
    })!;
    expect(text.split('\n')).toEqual([
      'Cluster up: 1 worker(s), failed hosts: n3',
      '  scheduler: tcp://n0:8786',
      '  dashboard: http://n0:8787/status',
      '  eval "$(sshcluster env --name lab)"',
    ]);
  });
  it('quotes a cluster name the shell would split', () => {
    const text = plainLine({
      kind: 'cluster-up',
      name: "my lab's",
      schedulerAddress: 'tls://n0:8786',
      dashboardUrl: 'd',
      workers: [],
      failedHosts: [],
    })!;
    expect(text.split('\n').at(-1)).toBe(`  eval "$(sshcluster env --name 'my lab'\\''s')"`);
  });
  it('shows a failed host with its reason and detail lines', () => {
    expect(plainLine({ kind: 'host-state', host: 'n2', state: 'failed', reason: 'auth refused', detail: ['x'] })).toBe(
      '[n2] failed: auth refused\n    x',
    );
  });
  it('says a process whose channel closed without an exit status was lost with the connection, not that it exited', () => {
    expect(
      plainLine({ kind: 'process-exit', host: 'n2', name: 'n2-0', code: null, signal: null, expected: false }),
    ).toBe('[n2] n2-0: lost with the connection to its host (no exit status)');
    expect(plainLine({ kind: 'process-exit', host: 'n2', name: 'n2-0', code: 1, signal: null, expected: false })).toBe(
      '[n2] n2-0 exited unexpectedly (code 1)',
    );
    expect(
      plainLine({ kind: 'process-exit', host: 'n2', name: 'n2-0', code: null, signal: 'KILL', expected: false }),
    ).toBe('[n2] n2-0 exited unexpectedly (signal KILL)');
  });
  it('says when teardown left something behind', () => {
    expect(plainLine({ kind: 'teardown-done', forced: [], leftover: [{ host: 'n1', pids: [5, 6] }] })).toContain(
      'STILL RUNNING on n1: pids 5 6',
    );
    expect(plainLine({ kind: 'teardown-done', forced: [], leftover: [] })).toContain(
      'verified: no process of this cluster is left',
    );
  });
  it('writes NDJSON events', () => {
    const out: string[] = [];
    ndjsonSink((t) => out.push(t))({ kind: 'notice', level: 'info', message: 'hi' });
    expect(JSON.parse(out[0]!)).toMatchObject({ kind: 'notice', message: 'hi' });
  });
});

describe('leftover lines', () => {
  it('tells a host still running something from one that could not be checked', async () => {
    const { leftoverLine } = await import('../../../src/events/plain-sink.js');
    expect(leftoverLine({ host: 'n1', pids: [7] })).toBe('  STILL RUNNING on n1: pids 7');
    expect(leftoverLine({ host: 'n2', pids: [] })).toContain('NOT CHECKED: n2 (not connected');
  });
  it('says a process taken over from a previous controller was adopted, not started', () => {
    expect(plainLine({ kind: 'process-started', host: 'n1', name: 'scheduler', pid: 42, adopted: true })).toBe(
      '[n1] scheduler adopted (pid 42)',
    );
    expect(plainLine({ kind: 'process-started', host: 'n1', name: 'n1-0', pid: 43 })).toBe(
      '[n1] n1-0 started (pid 43)',
    );
  });
});
