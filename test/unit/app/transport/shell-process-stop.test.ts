// Stopping a process goes through its launcher's stdin (a TERM line), so a teardown
// opens no new SSH exec (each one runs the login shell's rc file); only a KILL, when
// the grace runs out, also goes by PID over a command.
import { PassThrough } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import type { ExitInfo, ProcessSpec } from '../../../../src/cluster/ports.js';
import { ShellProcess } from '../../../../src/app/transport/shell-process.js';
import type { ExecHandle } from '../../../../src/ssh/exec-handle.js';
import type { ShellPort } from '../../../../src/ssh/shell-port.js';
import { FakeClock } from '../../cluster/fakes.js';

/** Lets the streams move until `ok` holds: turns of the event loop, not polls of real time (5 s at most). */
async function until(ok: () => boolean): Promise<void> {
  for (const end = Date.now() + 5_000; !ok() && Date.now() < end;) await new Promise((r) => setImmediate(r));
}

const spec: ProcessSpec = { name: 'h-0', host: 'h', role: 'worker', argv: ['python3'], env: {} };

function started(clock = new FakeClock()) {
  let exit!: (e: ExitInfo) => void;
  const stdout = new PassThrough();
  const stdin = new PassThrough();
  let written = '';
  stdin.on('data', (d: Buffer) => (written += d.toString()));
  const handle: ExecHandle = {
    stdout,
    stderr: new PassThrough(),
    stdin,
    closeStdin: () => stdin.end(),
    exit: new Promise<ExitInfo>((r) => (exit = r)),
    close: () => {},
  };
  const commands: string[] = [];
  const shell = {
    run: vi.fn(async (c: string) => (commands.push(c), { code: 0, stdout: '', stderr: '' })),
  } as unknown as ShellPort;
  const p = new ShellProcess(spec, handle, shell, { clock });
  stdout.write('__SSHCLUSTER_PID__ 42\n');
  return { p, stdout, exit, commands, written: () => written };
}

describe('ShellProcess.stop', () => {
  it('writes TERM to the launcher and runs no command when the process goes within the grace', async () => {
    const { p, exit, commands, written } = started();
    await p.pid;
    const stopping = p.stop(60_000);
    await until(() => written() === 'TERM\n');
    expect(written()).toBe('TERM\n');
    exit({ code: 143, signal: null });
    expect(await stopping).toEqual({ forced: false, exit: { code: 143, signal: null } });
    expect(commands).toEqual([]);
  });

  it('after the grace, writes KILL and also kills the group by PID over a command', async () => {
    const clock = new FakeClock();
    const { p, commands, written } = started(clock);
    await p.pid;
    // The grace and KILL's verification (5 s) pass on the fake clock, not in real time.
    let r: Awaited<ReturnType<typeof p.stop>> | undefined;
    void p.stop(50).then((x) => (r = x));
    for (let polls = 0; r === undefined && polls < 100; polls++) await clock.advance(250);
    if (!r) throw new Error('stop() did not end within 25 s of fake time');
    expect(written()).toBe('TERM\nKILL\n');
    expect(commands).toEqual(['kill -KILL -- -42 2>/dev/null || kill -KILL 42 2>/dev/null; true']);
    expect(r.forced).toBe(true);
  });
});

describe('ShellProcess.onLine', () => {
  it('stops delivering lines to a listener once it unsubscribes', async () => {
    const { p, stdout } = started();
    await p.pid;
    const seen: string[] = [];
    const off = p.onLine((_s, line) => seen.push(line));
    stdout.write('one\n');
    await until(() => seen.length > 0);
    expect(seen).toEqual(['one']);
    off();
    stdout.write('two\n');
    await new Promise((r) => setImmediate(r));
    expect(seen).toEqual(['one']);
  });
});
