// A process printing without pause: the controller takes in a bounded share of its
// output per stream, and counts and says the rest (issue 12, finding 1).
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ExitInfo, ProcessSpec } from '../../../../src/cluster/ports.js';
import { ShellProcess } from '../../../../src/app/transport/shell-process.js';
import type { ExecHandle } from '../../../../src/ssh/exec-handle.js';
import type { ShellPort } from '../../../../src/ssh/shell-port.js';

const spec: ProcessSpec = { name: '198.18.0.12-0', host: '198.18.0.12', role: 'worker', argv: ['python3'], env: {} };
const shell = {} as ShellPort;

function fakeHandle() {
  let exit!: (e: ExitInfo) => void;
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const handle: ExecHandle = {
    stdout,
    stderr,
    stdin: new PassThrough(),
    closeStdin: () => {},
    exit: new Promise<ExitInfo>((r) => (exit = r)),
    close: () => {},
  };
  return { handle, stdout, stderr, exit };
}

describe('ShellProcess under a flood', () => {
  afterEach(() => vi.useRealTimers());

  it('keeps a burst of each stream, drops the rest, and says how much', async () => {
    // The report's timer on a fake clock: it is due after 10 ms of it, not of real time.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { handle, stdout, stderr, exit } = fakeHandle();
    // The clock stands still: no budget is refilled while the test runs.
    const p = new ShellProcess(spec, handle, shell, {
      limits: { linesPerS: 100, bytesPerS: 1 << 20, burstS: 1 },
      now: () => 0,
      reportMs: 10,
    });
    const lines: string[] = [];
    const said: string[] = [];
    p.onLine((stream, line) => lines.push(`${stream}:${line}`));
    p.onDropped((text) => said.push(text));
    stdout.write('__SSHCLUSTER_PID__ 42\n' + 'flood\n'.repeat(10_000));
    stderr.write('distributed.worker - INFO - Registered to: tcp://198.18.0.10:8786\n');
    expect(await p.pid).toBe(42);
    await vi.advanceTimersByTimeAsync(9);
    expect(said).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(said.length).toBe(1);
    expect(lines.filter((l) => l === 'stdout:flood')).toHaveLength(100);
    // The other stream has its own budget: Dask's log lines still come through.
    expect(lines).toContain('stderr:distributed.worker - INFO - Registered to: tcp://198.18.0.10:8786');
    expect(said[0]).toMatch(/^198\.18\.0\.12-0: 9\.9 k lines of stdout dropped \(/);
    // The process's own log says it too, in order.
    expect(lines.at(-1)).toMatch(/^stdout:\[sshcluster\] 9\.9 k lines of stdout dropped/);
    exit({ code: 0, signal: null });
    await p.exited;
  });

  it('reports what was dropped last when the process ends before the report is due', async () => {
    const { handle, stdout, stderr, exit } = fakeHandle();
    const p = new ShellProcess(spec, handle, shell, {
      limits: { linesPerS: 1, bytesPerS: 1 << 20, burstS: 1 },
      now: () => 0,
      reportMs: 3_600_000,
    });
    const said: string[] = [];
    p.onDropped((text) => said.push(text));
    stdout.end('__SSHCLUSTER_PID__ 7\none\ntwo\nthree\n');
    stderr.end();
    await new Promise((r) => setImmediate(r));
    exit({ code: 0, signal: null });
    await p.exited;
    expect(said).toEqual([expect.stringMatching(/^198\.18\.0\.12-0: 2 lines of stdout dropped/)]);
  });
});
