// What a running process keeps for its life (issue 37): its line listeners in an array of
// exactly their number (made anew at each onLine), each still given every line in order
// until it unsubscribes; of its spec, only the name.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { ExitInfo, ProcessSpec } from '../../../../src/cluster/ports.js';
import { ShellProcess } from '../../../../src/app/transport/shell-process.js';
import type { ExecHandle } from '../../../../src/ssh/exec-handle.js';
import type { ShellPort } from '../../../../src/ssh/shell-port.js';

const spec: ProcessSpec = { name: 'h-0', host: 'h', role: 'worker', argv: ['python3'], env: {} };

function handleOf() {
  let exit!: (e: ExitInfo) => void;
  const stdout = new PassThrough();
  const handle: ExecHandle = {
    stdout,
    stderr: new PassThrough(),
    stdin: new PassThrough(),
    closeStdin: () => {},
    exit: new Promise<ExitInfo>((r) => (exit = r)),
    close: () => {},
  };
  return { handle, stdout, exit: (e: ExitInfo) => exit(e) };
}

describe('ShellProcess, kept lean', () => {
  it('keeps its name, not its spec (argv and env), and names itself in a failure', async () => {
    const { handle, exit } = handleOf();
    const p = new ShellProcess({ ...spec, argv: ['python3', '-m', 'x'], env: { K: 'v' } }, handle, {} as ShellPort);
    expect(p.name).toBe('h-0');
    expect(Object.values(p)).not.toContainEqual(expect.objectContaining({ argv: expect.anything() }));
    exit({ code: 1, signal: null });
    await expect(p.pid).rejects.toThrow('h-0 exited before it started');
  });

  it('gives every line to each listener, in order, and none after it unsubscribes', async () => {
    const { handle, stdout, exit } = handleOf();
    const p = new ShellProcess(spec, handle, {} as ShellPort, { now: () => 0 });
    const a: string[] = [];
    const b: string[] = [];
    const c: string[] = [];
    p.onLine((_, l) => a.push(l));
    const offB = p.onLine((_, l) => b.push(l));
    stdout.write('__SSHCLUSTER_PID__ 7\none\n');
    expect(await p.pid).toBe(7);
    p.onLine((_, l) => c.push(l));
    stdout.write('two\n');
    await new Promise((r) => setImmediate(r));
    offB();
    stdout.write('three\n');
    await new Promise((r) => setImmediate(r));
    expect(a).toEqual(['one', 'two', 'three']);
    expect(b).toEqual(['one', 'two']);
    expect(c).toEqual(['two', 'three']);
    exit({ code: 0, signal: null });
    await p.exited;
  });
});
