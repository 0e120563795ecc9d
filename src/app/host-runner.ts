// HostRunner over any ShellPort: every process is started through the Python launcher
// (its own process group, PID reported on the first stdout line, stopped when the
// session's stdin closes) and tagged with SSHCLUSTER_ID so we only ever touch ours.
import type { Duplex } from 'node:stream';
import type { ExitInfo, HostRunner, LineStream, ProcessSpec, RunningProcess } from '../cluster/ports.js';
import { buildRemoteCommand } from '../dask/argv.js';
import { CLUSTER_ID_ENV, quoteWord } from '../dask/remote-command.js';
import { parseLauncherPid } from '../dask/log-lines.js';
import { splitLines } from './line-splitter.js';
import type { ShellPort } from './shell-port.js';

const CONTROL_TIMEOUT_MS = 15_000;
/** Names the host a process was started for, next to the cluster id. */
export const HOST_TAG = 'SSHCLUSTER_HOST';

export interface HostRunnerOptions {
  host: string;
  clusterId: string;
  setup: string[];
  shell: ShellPort;
}

export class ShellHostRunner implements HostRunner {
  readonly host: string;
  constructor(private readonly o: HostRunnerOptions) {
    this.host = o.host;
  }

  async start(spec: ProcessSpec): Promise<RunningProcess> {
    const env = { ...spec.env, [HOST_TAG]: this.host };
    const command = buildRemoteCommand({ setup: this.o.setup, env, argv: spec.argv, clusterId: this.o.clusterId });
    const handle = await this.o.shell.exec(command);
    return new ShellProcess(spec, handle, this.o.shell);
  }

  async listTagged(clusterId: string): Promise<number[]> {
    // environ is NUL-separated; `tr` makes each variable a whole line so ids never match
    // by prefix. Both the cluster id and this host's name must match: hosts that share
    // a kernel (containers, namespaces) must not see each other's processes as theirs.
    const id = quoteWord(`${CLUSTER_ID_ENV}=${clusterId}`);
    const host = quoteWord(`${HOST_TAG}=${this.host}`);
    const cmd =
      `for p in /proc/[0-9]*; do n=$(tr '\\0' '\\n' < "$p/environ" 2>/dev/null | grep -cxF -e ${id} -e ${host}); ` +
      `[ "$n" = 2 ] && echo "\${p#/proc/}"; done; true`;
    const r = await this.o.shell.run(cmd, { timeoutMs: CONTROL_TIMEOUT_MS });
    return r.stdout.split('\n').filter(Boolean).map(Number).filter((n) => Number.isInteger(n) && n > 1);
  }

  async killPids(pids: number[]): Promise<void> {
    await this.signalPids('KILL', pids);
  }

  async signalPids(signal: 'TERM' | 'KILL', pids: number[]): Promise<void> {
    if (!pids.length) return;
    await this.o.shell.run(`kill -${signal} ${pids.join(' ')} 2>/dev/null; true`, { timeoutMs: CONTROL_TIMEOUT_MS });
  }

  forwardOut(host: string, port: number): Promise<Duplex> {
    return this.o.shell.forwardOut(host, port);
  }

  close(): void {
    this.o.shell.close();
  }
}

class ShellProcess implements RunningProcess {
  readonly pid: Promise<number>;
  readonly exited: Promise<ExitInfo>;
  private listeners: ((stream: LineStream, line: string) => void)[] = [];
  private done = false;

  constructor(
    readonly spec: ProcessSpec,
    private readonly handle: import('./shell-port.js').ExecHandle,
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
