// A status snapshot and a store with events, for the dashboard's tests.
import { vi } from 'vitest';
import type { DashboardActions } from '../../../src/ui/actions.js';
import type { StatusJson, WorkerStatus } from '../../../src/control/status-document.js';
import { DashboardStore } from '../../../src/ui/store.js';

export const T0 = Date.parse('2026-01-01T00:00:00Z');

export function snapshot(over: Partial<StatusJson> = {}): StatusJson {
  const w = (name: string, host: string, extra: Partial<WorkerStatus> = {}): WorkerStatus => ({
    name,
    host,
    pid: 100,
    state: 'running',
    restarts: 0,
    address: `tcp://${host}:40000`,
    nthreads: 2,
    cpu: 12.5,
    memoryBytes: 150 * 2 ** 20,
    memoryLimitBytes: 2 * 2 ** 30,
    executing: 1,
    ...extra,
  });
  return {
    name: 'lab',
    clusterId: 'c0ffee',
    schedulerAddress: 'tcp://10.0.0.1:8786',
    dashboardUrl: 'http://10.0.0.1:8787/status',
    startedAt: new Date(T0).toISOString(),
    uptimeS: 65,
    controllerPid: 4242,
    desiredWorkers: 3,
    hosts: [
      { name: 'node0', roles: ['scheduler'], state: 'up', lastError: null, workers: 0 },
      { name: 'node1', roles: ['worker'], state: 'up', lastError: null, workers: 2 },
      {
        name: 'node2',
        roles: ['worker'],
        state: 'unreachable',
        lastError: 'connect ECONNREFUSED 10.0.0.3:22',
        workers: 0,
      },
    ],
    workers: [
      w('node1-0', 'node1'),
      w('node1-1', 'node1', { restarts: 2, executing: 3 }),
      w('node2-0', 'node2', { state: 'stopped', pid: null, address: null }),
    ],
    adaptive: {
      enabled: true,
      minimum: 1,
      maximum: 4,
      intervalMs: 1000,
      waitCount: 3,
      targetDurationMs: 5000,
      target: 3,
      unmet: [],
      lastDecision: { decision: 'up by 1', reason: 'scheduler wants 3', time: new Date(T0).toISOString() },
      log: [],
    },
    ...over,
  };
}

/** A dashboard that has seen one status and the cluster-up event, nothing else. */
export function clusterUpStore(now: () => number, status: StatusJson, failedHosts: string[]): DashboardStore {
  const s = new DashboardStore('lab', now);
  s.setStatus(status);
  s.apply({
    kind: 'cluster-up',
    name: 'lab',
    schedulerAddress: 'tcp://10.0.0.1:8786',
    dashboardUrl: 'http://10.0.0.1:8787/status',
    workers: [],
    failedHosts,
  });
  return s;
}

export function upStore(now = () => T0 + 65_000): DashboardStore {
  const s = clusterUpStore(now, snapshot(), ['node2']);
  s.apply({
    kind: 'process-line',
    host: 'node0',
    name: 'scheduler',
    stream: 'stderr',
    line: 'distributed.scheduler - INFO - Register worker',
  });
  s.apply({
    kind: 'process-line',
    host: 'node1',
    name: 'node1-0',
    stream: 'stderr',
    line: 'distributed.worker - WARNING - Unmanaged memory use is high',
  });
  s.apply({
    kind: 'process-line',
    host: 'node1',
    name: 'node1-1',
    stream: 'stderr',
    line: 'distributed.worker - ERROR - Compute Failed',
  });
  return s;
}

export function fakeActions(mode: 'controller' | 'attached' = 'controller') {
  const calls: string[] = [];
  // As a controller does: the size asked for is the status's desiredWorkers from then on.
  let desired: number | undefined;
  const actions: DashboardActions = {
    mode,
    status: async () => ({ ...snapshot(), ...(desired === undefined ? {} : { desiredWorkers: desired }) }),
    scale: async (n) => (calls.push(`scale ${n}`), (desired = n), { desired: n }),
    setAdaptive: async (on) => void calls.push(`adaptive ${on}`),
    restartWorker: async (name) => void calls.push(`restart ${name}`),
    teardown: async () => void calls.push('teardown'),
    detach: () => void calls.push('detach'),
    interrupt: () => void calls.push('interrupt'),
  };
  return { actions, calls };
}

/**
 * Fakes the timers the dashboard draws and polls on, and Date. React renders on a real
 * setImmediate (not faked), so a test steps the clock and the frames follow, in no real time.
 */
export function fakeTimers(now = Date.now()): void {
  vi.useFakeTimers({ now, toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
}

/** A fake-clock step, then the frame it caused. */
export async function step(ms = 0): Promise<void> {
  await vi.advanceTimersByTimeAsync(ms);
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
}

/**
 * Presses a key and waits for the frame it causes (an event, not time), then lets what the
 * key started settle. With fakeTimers: a key's frame is drawn on a 0 ms timer.
 */
export async function press(r: { frames: string[]; stdin: { write(data: string): void } }, k: string): Promise<void> {
  const before = r.frames.length;
  r.stdin.write(k);
  for (let i = 0; i < 1_000 && r.frames.length === before; i++) await step(1);
  await step(5);
}
