// A process on a host as seen through one exec channel: the launcher's (or the
// keeper's) PID line first, then output lines, then the exit. Stopping writes TERM or
// KILL to the launcher's stdin, which signals the process group (channel signals are
// unreliable on OpenSSH); KILL also goes by PID over a separate command. A teardown's
// stop writes DOWN and a token, and the launcher's last line may give that token back:
// nothing else of the cluster is left on the host (hostClean).
// Each stream has an output budget (output-budget.ts): what is over it is dropped here,
// before it costs the controller anything, and said in the process's log and a notice.
import { randomBytes } from 'node:crypto';
import type { Clock, ExitInfo, LineStream, ProcessSpec, RunningProcess } from '../../cluster/ports.js';
import { LAUNCHER_CLEAN_PREFIX, LAUNCHER_PID_PREFIX, parseLauncherPid } from '../../dask/log-lines.js';
import { within } from '../../cluster/clock.js';
import { systemClock } from '../system-clock.js';
import { splitLines, type Admit } from './line-splitter.js';
import { DEFAULT_LIMITS, droppedText, OutputBudget, type BudgetLimits } from './output-budget.js';
import { CONTROL_COMMAND_TIMEOUT_MS, type ShellPort } from '../../ssh/shell-port.js';
import type { ExecHandle } from '../../ssh/exec-handle.js';
import { stopTagged } from './stop-tagged.js';

/** After SIGKILL, how long the channel may take to report the exit. */
const KILL_VERIFY_MS = 5_000;
/** How often a flood's drop count is said (and once more when it ends). */
const DROP_REPORT_MS = 10_000;
const PID_PREFIX = Buffer.from(LAUNCHER_PID_PREFIX);
/** After the exit, how long the launcher's last line may take to arrive (it comes before the channel's end). */
const CLEAN_LINE_MS = 2_000;

export interface ShellProcessOptions {
  limits?: BudgetLimits;
  now?: () => number;
  reportMs?: number;
  /** A kill sent by a new exec may take this long (the host's `command_timeout`). */
  commandTimeoutMs?: number;
  /** The stop's waits (grace, KILL's verification); the system clock if not given. */
  clock?: Clock;
}

export class ShellProcess implements RunningProcess {
  readonly pid: Promise<number>;
  readonly exited: Promise<ExitInfo>;
  private listeners: ((stream: LineStream, line: string) => void)[] = [];
  private dropListeners: ((text: string) => void)[] = [];
  private done = false;
  private readonly budgets: Record<LineStream, OutputBudget>;
  private reportTimer?: NodeJS.Timeout;
  private readonly now: () => number;
  /** The line a teardown's stop waits for, once it wrote DOWN (see the top of the file). */
  private cleanLine?: Buffer;
  private saidClean = false;
  private readonly stdoutEnded: Promise<void>;
  /**
   * The process's name: all it keeps of its spec, whose argv and env (built for each
   * process) would otherwise live as long as it does, 40,000 of them at 10,000 hosts.
   */
  readonly name: string;

  constructor(
    spec: ProcessSpec,
    private readonly handle: ExecHandle,
    private readonly shell: ShellPort,
    private readonly o: ShellProcessOptions = {},
  ) {
    const name = spec.name;
    this.name = name;
    this.now = o.now ?? Date.now;
    const limits = o.limits ?? DEFAULT_LIMITS;
    this.budgets = { stdout: new OutputBudget(limits, this.now), stderr: new OutputBudget(limits, this.now) };
    let gotPid: (pid: number) => void = () => {};
    let noPid: (e: Error) => void = () => {};
    this.pid = new Promise<number>((res, rej) => ((gotPid = res), (noPid = rej)));
    this.pid.catch(() => {}); // a process that never starts is reported through `exited`
    let pidSeen = false;
    const admit =
      (stream: LineStream): Admit =>
      (buf, start, end) => {
        if (stream === 'stdout' && !pidSeen && isPidLine(buf, start, end)) return true;
        if (stream === 'stdout' && this.cleanLine?.equals(buf.subarray(start, end))) return true;
        if (this.budgets[stream].admit(end - start)) return true;
        this.reportTimer ??= setTimeout(() => this.reportDropped(), this.o.reportMs ?? DROP_REPORT_MS).unref();
        return false;
      };
    splitLines(
      handle.stdout,
      (line) => {
        if (!pidSeen) {
          const pid = parseLauncherPid(line);
          if (pid !== undefined) {
            pidSeen = true;
            gotPid(pid);
            return;
          }
        }
        if (this.cleanLine && line === this.cleanLine.toString()) {
          this.saidClean = true;
          return;
        }
        this.emit('stdout', line);
      },
      admit('stdout'),
    );
    this.stdoutEnded = new Promise((ended) => (handle.stdout.once('end', ended), handle.stdout.once('close', ended)));
    splitLines(handle.stderr, (line) => this.emit('stderr', line), admit('stderr'));
    this.exited = handle.exit.then((e) => {
      this.done = true;
      this.reportDropped();
      if (!pidSeen) noPid(new Error(`${name} exited before it started`));
      return e;
    });
  }

  private emit(stream: LineStream, line: string): void {
    for (const l of this.listeners) l(stream, line);
  }

  onLine(cb: (stream: LineStream, line: string) => void): () => void {
    // A new array of exactly this many (concat), not push() nor a spread: those keep room for 17 (152
    // bytes), twice a process, for the life of each of 40,000 workers at 10,000 hosts.
    this.listeners = this.listeners.concat([cb]);
    return () => (this.listeners = this.listeners.filter((l) => l !== cb));
  }

  /** A flood's drop count, e.g. "198.18.0.12-0: 1.2 M lines of stdout dropped (…)". */
  onDropped(cb: (text: string) => void): void {
    this.dropListeners = this.dropListeners.concat([cb]);
  }

  private reportDropped(): void {
    clearTimeout(this.reportTimer);
    this.reportTimer = undefined;
    for (const stream of ['stdout', 'stderr'] as const) {
      const budget = this.budgets[stream];
      const d = budget.takeDropped();
      if (!d) continue;
      const text = droppedText(this.name, stream, d, budget.limits, this.now());
      this.emit(stream, `[sshcluster] ${text.slice(this.name.length + 2)}`);
      for (const l of this.dropListeners) l(text);
    }
  }

  async stop(
    graceMs: number,
    force?: AbortSignal,
    how?: { clusterEnds?: boolean },
  ): Promise<{ forced: boolean; exit: ExitInfo; hostClean?: boolean }> {
    if (this.done) return { forced: false, exit: await this.exited };
    const pid = await Promise.race([this.pid, this.exited.then(() => undefined)]).catch(() => undefined);
    if (pid === undefined) return { forced: false, exit: await this.exited };
    const token = how?.clusterEnds ? randomBytes(12).toString('hex') : undefined;
    if (token) this.cleanLine = Buffer.from(`${LAUNCHER_CLEAN_PREFIX} ${token}`);
    const target = {
      signal: async (sig: 'TERM' | 'KILL') => {
        await this.signal(sig === 'TERM' && token ? `DOWN ${token}` : sig, pid);
        if (sig === 'KILL') this.handle.closeStdin();
      },
      alive: async (pids: number[]) => (this.done ? [] : pids),
      gone: this.exited,
    };
    const r = await stopTagged(target, [pid], { graceMs, verifyMs: KILL_VERIFY_MS, force, clock: this.o.clock });
    if (!r.forced.length) {
      const exit = await this.exited;
      if (token && !this.saidClean)
        await within(this.o.clock ?? systemClock, CLEAN_LINE_MS, undefined, this.stdoutEnded);
      return { forced: false, exit, ...(this.saidClean ? { hostClean: true } : {}) };
    }
    const exit = this.done ? await this.exited : { code: null, signal: 'SIGKILL' };
    this.handle.close();
    return { forced: true, exit };
  }

  private async signal(sig: 'TERM' | `DOWN ${string}` | 'KILL', pid: number): Promise<void> {
    // A line on the channel's stdin: the launcher (or keeper) signals the group. No new
    // exec, so no login-shell rc file on the way down. DOWN is TERM for a cluster that
    // ends (launcher.py). KILL goes by PID as well, for a launcher that does not read
    // its stdin any more.
    if (this.tell(sig) && sig !== 'KILL') return;
    const kill = sig === 'KILL' ? 'KILL' : 'TERM';
    // The group first (nanny + worker), then the PID itself in case the group is gone.
    await this.shell
      .run(`kill -${kill} -- -${pid} 2>/dev/null || kill -${kill} ${pid} 2>/dev/null; true`, {
        timeoutMs: this.o.commandTimeoutMs ?? CONTROL_COMMAND_TIMEOUT_MS,
      })
      .catch(() => undefined);
  }

  /** Writes the line to the launcher's stdin; false when the channel takes no more input. */
  private tell(sig: string): boolean {
    const stdin = this.handle.stdin;
    if (this.done || !stdin.writable) return false;
    stdin.write(`${sig}\n`);
    return true;
  }
}

function isPidLine(buf: Buffer, start: number, end: number): boolean {
  return (
    end - start >= PID_PREFIX.length &&
    buf.compare(PID_PREFIX, 0, PID_PREFIX.length, start, start + PID_PREFIX.length) === 0
  );
}
