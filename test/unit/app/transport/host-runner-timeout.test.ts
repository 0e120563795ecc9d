// Every control command a host runner runs (the scan, a kill, the files' removal) is
// bounded by the host's command_timeout, 15 s when it has none.
import { describe, expect, it } from 'vitest';
import { ShellHostRunner } from '../../../../src/app/transport/host-runner.js';
import { CONTROL_COMMAND_TIMEOUT_MS, type ShellPort } from '../../../../src/ssh/shell-port.js';
import type { Clock } from '../../../../src/cluster/ports.js';

/** A clock whose waits end at once (time moves on by what was waited): the check after KILL takes no real time. */
function steppingClock(waits: number[]): Clock {
  let t = 0;
  return {
    now: () => t,
    after: (ms, fn) => (waits.push(ms), (t += ms), queueMicrotask(fn), () => {}),
  };
}

function shell(timeouts: number[]): ShellPort {
  return {
    exec: () => Promise.reject(new Error('no exec here')),
    run: async (_cmd, o) => (timeouts.push(o.timeoutMs), { code: 0, stdout: '', stderr: '' }),
    forwardOut: () => Promise.reject(new Error('no forwarding here')),
    onClose: () => {},
    close: () => {},
  };
}

const runner = (timeouts: number[], commandTimeoutMs?: number, waits: number[] = []) =>
  new ShellHostRunner({
    clock: steppingClock(waits),
    host: 'node1',
    clusterId: 'c0ffee',
    setup: [],
    shell: shell(timeouts),
    python: 'python3',
    env: {},
    ...(commandTimeoutMs !== undefined ? { commandTimeoutMs } : {}),
  });

describe('a host runner’s control commands', () => {
  it('take the host’s command_timeout', async () => {
    const timeouts: number[] = [];
    const waits: number[] = [];
    const r = runner(timeouts, 120_000, waits);
    await r.listTagged();
    await r.stopTagged([4242], { graceMs: 0 });
    await r.run('true');
    // The stop waited on the runner's clock once (a poll after KILL), then scanned: gone.
    expect(waits).toEqual([250]);
    expect(timeouts.length).toBeGreaterThanOrEqual(3);
    expect(new Set(timeouts)).toEqual(new Set([120_000]));
  });

  it('take 15 s without one', async () => {
    const timeouts: number[] = [];
    await runner(timeouts).listTagged();
    expect(timeouts).toEqual([CONTROL_COMMAND_TIMEOUT_MS]);
    expect(CONTROL_COMMAND_TIMEOUT_MS).toBe(15_000);
  });
});
