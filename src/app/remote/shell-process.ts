// A process on a host as seen through one exec channel: the launcher's (or the
// keeper's) PID line first, then output lines, then the exit. Stopping signals the
// process group by PID over a separate command, since channel signals are unreliable.
import type { ExitInfo, LineStream, ProcessSpec, RunningProcess } from '../../cluster/ports.js';
import { parseLauncherPid } from '../../dask/log-lines.js';
import { splitLines } from './line-splitter.js';
import type { ExecHandle, ShellPort } from './shell-port.js';

const CONTROL_TIMEOUT_MS = 15_000;

export class ShellProcess implements RunningProcess {
  readonly pid: Promise<number>;
  readonly exited: Promise<ExitInfo>;
  private listeners: ((stream: LineStream, line: string) => void)[] = [];
  private done = false;

  constructor(
    readonly spec: ProcessSpec,
    private readonly handle: ExecHandle,
    private readonly shell: ShellPort,
  ) {
    let gotPid: (pid: number) => void = () => {};
    let noPid: (e: Error) => void = () => {};
    this.pid = new Promise<number>((res, rej) => ((gotPid = res), (noPid = rej)));
    this.pid.catch(() => {}); // a process that never starts is reported through `exited`
    let pidSeen = false;
    splitLines(handle.stdout, (line) => {
      if (!pidSeen) {
        const pid = parseLauncherPid(line);
        if (pid !== undefined) {
          pidSeen = true;
          gotPid(pid);
          return;
        }
      }
      this.emit('stdout', line);
    });
    splitLines(handle.stderr, (line) => this.emit('stderr', line));
    this.exited = handle.exit.then((e) => {
      this.done = true;
      if (!pidSeen) noPid(new Error(`${spec.name} exited before it started`));
      return e;
    });
  }

  private emit(stream: LineStream, line: string): void {
    for (const l of this.listeners) l(stream, line);
  }

  onLine(cb: (stream: LineStream, line: string) => void): void {
    this.listeners.push(cb);
  }

  async stop(graceMs: number): Promise<{ forced: boolean; exit: ExitInfo }> {
    if (this.done) return { forced: false, exit: await this.exited };
    const pid = await Promise.race([this.pid, this.exited.then(() => undefined)]).catch(() => undefined);
    if (pid === undefined) return { forced: false, exit: await this.exited };
    await this.signal('TERM', pid);
    const inTime = await Promise.race([this.exited.then(() => true), sleep(graceMs).then(() => false)]);
    if (inTime) return { forced: false, exit: await this.exited };
    await this.signal('KILL', pid);
    this.handle.closeStdin();
    const exit = await Promise.race([this.exited, sleep(5_000).then(() => ({ code: null, signal: 'SIGKILL' }))]);
    this.handle.close();
    return { forced: true, exit };
  }

  private async signal(sig: 'TERM' | 'KILL', pid: number): Promise<void> {
    // The group first (nanny + worker), then the PID itself in case the group is gone.
    await this.shell
      .run(`kill -${sig} -- -${pid} 2>/dev/null || kill -${sig} ${pid} 2>/dev/null; true`, { timeoutMs: CONTROL_TIMEOUT_MS })
      .catch(() => undefined);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms).unref());
}
