// A process on a host as seen through one exec channel: the launcher's (or the
// keeper's) PID line first, then output lines, then the exit. Stopping signals the
// process group by PID over a separate command, since channel signals are unreliable.
import type { ExitInfo, LineStream, ProcessSpec, RunningProcess } from '../../cluster/ports.js';
import { parseLauncherPid } from '../../dask/log-lines.js';
import { splitLines } from './line-splitter.js';
import type { ExecHandle, ShellPort } from './shell-port.js';
import { stopTagged } from './stop-tagged.js';

const CONTROL_TIMEOUT_MS = 15_000;
/** After SIGKILL, how long the channel may take to report the exit. */
const KILL_VERIFY_MS = 5_000;

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

  async stop(graceMs: number, force?: AbortSignal): Promise<{ forced: boolean; exit: ExitInfo }> {
    if (this.done) return { forced: false, exit: await this.exited };
    const pid = await Promise.race([this.pid, this.exited.then(() => undefined)]).catch(() => undefined);
    if (pid === undefined) return { forced: false, exit: await this.exited };
    const target = {
      signal: async (sig: 'TERM' | 'KILL') => {
        await this.signal(sig, pid);
        if (sig === 'KILL') this.handle.closeStdin();
      },
      alive: async (pids: number[]) => (this.done ? [] : pids),
      gone: this.exited,
    };
    const r = await stopTagged(target, [pid], { graceMs, verifyMs: KILL_VERIFY_MS, force });
    if (!r.forced.length) return { forced: false, exit: await this.exited };
    const exit = this.done ? await this.exited : { code: null, signal: 'SIGKILL' };
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
