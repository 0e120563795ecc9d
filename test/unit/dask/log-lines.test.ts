// Parsers against stderr captured from real distributed 2022.12.1 processes
// (fixtures/dask/*.log; how each was produced is in fixtures/dask/README.md).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  dashboardUrl,
  parseKeeperRefusal,
  parseLauncherPid,
  parseLevel,
  isClientTerminate,
  parseRecord,
  parseSchedulerLine,
  parseWorkerLine,
  type SchedulerLine,
  type WorkerLine,
} from '../../../src/dask/log-lines.js';

const fixture = (name: string): string[] =>
  readFileSync(new URL(`../fixtures/dask/${name}`, import.meta.url), 'utf8')
    .split('\n')
    .filter(Boolean);

const scheduler = (name: string): SchedulerLine[] => fixture(name).flatMap((l) => parseSchedulerLine(l) ?? []);
const worker = (name: string): WorkerLine[] => fixture(name).flatMap((l) => parseWorkerLine(l) ?? []);

describe('parseRecord / parseLevel', () => {
  it('splits the pinned log format', () => {
    const [line] = fixture('scheduler.log');
    expect(parseRecord(line!)).toEqual({
      time: '2026-11-21 12:38:01,989',
      logger: 'distributed.scheduler',
      level: 'INFO',
      message: '-----------------------------------------------',
    });
  });
  it('reads levels and ignores non-records', () => {
    const levels = fixture('worker.log').map(parseLevel);
    expect(levels).toContain('WARNING'); // "Restarting worker"
    expect(parseLevel('Traceback (most recent call last):')).toBeUndefined();
    expect(parseLevel(fixture('worker-before-scheduler.log').find((l) => l.includes('died'))!)).toBe('ERROR');
  });
});

describe('parseLauncherPid', () => {
  it('accepts only the exact launcher line', () => {
    expect(parseLauncherPid('__SSHCLUSTER_PID__ 4242')).toBe(4242);
    expect(parseLauncherPid('__SSHCLUSTER_PID__ 4242\r')).toBe(4242);
    expect(parseLauncherPid('x __SSHCLUSTER_PID__ 4242')).toBeUndefined();
    expect(parseLauncherPid('__SSHCLUSTER_PID__ abc')).toBeUndefined();
  });
});

describe('parseKeeperRefusal', () => {
  it("reads the keeper's refusal of a planted log directory, and nothing else", () => {
    const line =
      'sshcluster-keeper: not our directory: /tmp/sshcluster-0/abc (a symlink or not a directory); the output written while no controller watched is not shown';
    expect(parseKeeperRefusal(line)).toBe(line.slice('sshcluster-keeper: '.length));
    expect(
      parseKeeperRefusal('sshcluster-keeper: the launcher of 42 is gone; its output cannot be shown'),
    ).toBeUndefined();
    expect(parseKeeperRefusal('worker says sshcluster-keeper: not our directory: x')).toBeUndefined();
  });
});

describe('parseSchedulerLine', () => {
  it('finds address, dashboard and worker membership in a normal run', () => {
    const events = scheduler('scheduler.log');
    expect(events).toContainEqual({ kind: 'listening', address: 'tcp://192.0.2.2:44597' });
    expect(events).toContainEqual({ kind: 'dashboard', host: undefined, port: 52677 });
    expect(events).toContainEqual({ kind: 'worker-added', address: 'tcp://127.0.0.1:45523', name: 'w-0' });
    expect(events).toContainEqual({ kind: 'worker-retired', address: 'tcp://127.0.0.1:45523' });
    expect(events).toContainEqual({ kind: 'worker-removed', address: 'tcp://127.0.0.1:35295', name: 'w-0' });
    expect(events).toContainEqual({ kind: 'worker-added', address: 'tcp://127.0.0.1:46811', name: 'w-1' });
    expect(events).toContainEqual({ kind: 'signal', signal: 'SIGTERM' });
    expect(events.slice(-4)).toEqual([
      { kind: 'signal', signal: 'SIGTERM' },
      { kind: 'closing' },
      { kind: 'worker-removed', address: 'tcp://127.0.0.1:46811', name: 'w-1' },
      { kind: 'stopped' },
    ]);
  });

  it('reads a dashboard bound to a host, and builds URLs', () => {
    const events = scheduler('scheduler-host.log');
    expect(events).toContainEqual({ kind: 'listening', address: 'tcp://127.0.0.1:50019' });
    const dash = events.find((e) => e.kind === 'dashboard');
    expect(dash).toEqual({ kind: 'dashboard', host: '127.0.0.1', port: 32913 });
    expect(dashboardUrl(dash as { host: string; port: number }, 'node0')).toBe('http://127.0.0.1:32913/status');
    expect(dashboardUrl({ host: undefined, port: 8787 }, 'node0')).toBe('http://node0:8787/status');
    expect(dashboardUrl({ host: undefined, port: 8787 }, '::1')).toBe('http://[::1]:8787/status');
  });

  it('reports a scheduler port already in use', () => {
    const events = scheduler('scheduler-port-in-use.log');
    expect(events.some((e) => e.kind === 'listening')).toBe(false);
    expect(events).toContainEqual({
      kind: 'error',
      reason: 'address-in-use',
      message: 'OSError: [Errno 98] Address already in use',
    });
    expect(events).toContainEqual({
      kind: 'error',
      reason: 'exception',
      exception: 'RuntimeError',
      message: 'Scheduler failed to start.',
    });
    expect(events.filter((e) => e.kind === 'traceback')).toHaveLength(2);
  });

  it('notices a dashboard port taken (Dask picks another one and says which)', () => {
    const events = scheduler('scheduler-dashboard-in-use.log');
    expect(events).toContainEqual({ kind: 'dashboard-port-taken', port: 52677 });
    expect(events).toContainEqual({ kind: 'dashboard', host: undefined, port: 42999 });
  });

  it('reports a duplicate worker name', () => {
    expect(scheduler('scheduler-duplicate-name.log')).toContainEqual({ kind: 'duplicate-name', name: 'dup' });
  });
});

describe('parseWorkerLine', () => {
  it('follows a nanny worker through start, registration, retire-restart and SIGTERM', () => {
    const events = worker('worker.log');
    expect(events.slice(0, 4)).toEqual([
      { kind: 'nanny', address: 'tcp://127.0.0.1:43971' },
      { kind: 'listening', address: 'tcp://127.0.0.1:45523' },
      { kind: 'name', name: 'w-0' },
      { kind: 'waiting-for-scheduler', scheduler: 'tcp://127.0.0.1:44597' },
    ]);
    expect(events).toContainEqual({ kind: 'registered', scheduler: 'tcp://127.0.0.1:44597' });
    expect(events).toContainEqual({ kind: 'restarting' });
    expect(events).toContainEqual({ kind: 'listening', address: 'tcp://127.0.0.1:35295' });
    expect(events).toContainEqual({ kind: 'signal', signal: 'SIGTERM' });
    expect(events).toContainEqual({
      kind: 'closing',
      address: 'tcp://127.0.0.1:35295',
      reason: 'nanny-close',
      nanny: false,
    });
    expect(events).toContainEqual({
      kind: 'closing',
      address: 'tcp://127.0.0.1:43971',
      reason: 'nanny-close',
      nanny: true,
    });
    expect(events.at(-1)).toEqual({ kind: 'stopped' });
  });

  it('sees the scheduler close a no-nanny worker', () => {
    const events = worker('worker-no-nanny.log');
    expect(events).toContainEqual({ kind: 'registered', scheduler: 'tcp://127.0.0.1:44597' });
    expect(events).toContainEqual({
      kind: 'closing',
      address: 'tcp://127.0.0.1:46811',
      reason: 'scheduler-close',
      nanny: false,
    });
    expect(events).toContainEqual({
      kind: 'error',
      reason: 'exception',
      exception: 'distributed.comm.core.CommClosedError',
      message: '',
    });
  });

  it('reports death-timeout with and without a nanny', () => {
    expect(worker('worker-death-timeout.log')).toContainEqual({
      kind: 'timeout',
      message: 'Timed out starting worker',
    });
    const noNanny = worker('worker-no-nanny-death-timeout.log');
    expect(noNanny).toContainEqual({ kind: 'waiting-for-scheduler', scheduler: 'tcp://127.0.0.1:47059' });
    expect(noNanny).toContainEqual({ kind: 'timeout', message: 'Timed out starting worker' });
  });

  it('registers late when started before the scheduler, and closes when it vanishes', () => {
    const events = worker('worker-no-nanny-before-scheduler.log');
    expect(events).toContainEqual({ kind: 'registered', scheduler: 'tcp://127.0.0.1:49511' });
    expect(events).toContainEqual({
      kind: 'closing',
      address: 'tcp://127.0.0.1:44395',
      reason: 'worker-handle-scheduler-connection-broken',
      nanny: false,
    });
    const nanny = worker('worker-before-scheduler.log');
    expect(nanny).toContainEqual({ kind: 'worker-died', message: 'Worker process died unexpectedly' });
  });

  it('reports a name already taken', () => {
    const events = worker('worker-duplicate-name.log');
    expect(events).toContainEqual({ kind: 'rejected', reason: 'name taken, dup', nameTaken: true });
    expect(events).toContainEqual({
      kind: 'error',
      reason: 'exception',
      exception: 'RuntimeError',
      message: 'Worker failed to start.',
    });
  });
});

describe('isClientTerminate', () => {
  it("is the scheduler preload's line for a client's shutdown(), nothing else", () => {
    const line =
      '2026-11-28 13:02:20,963 - distributed.sshcluster.demand - INFO - sshcluster: a client asked the scheduler to terminate';
    expect(isClientTerminate(line)).toBe(true);
    expect(isClientTerminate(line.replace('distributed.sshcluster.demand', 'distributed.worker'))).toBe(false);
    expect(isClientTerminate('sshcluster: a client asked the scheduler to terminate')).toBe(false); // a task's print
    expect(isClientTerminate('2026-11-28 13:02:20,963 - distributed.scheduler - INFO - Scheduler closing...')).toBe(
      false,
    );
  });
});
