// HostRunner over any ShellPort: every process is started through the Python launcher
// (its own process group, PID reported on the first stdout line, stopped when the
// session's stdin closes, or after the orphan grace) and tagged with SSHCLUSTER_ID so
// we only ever touch ours. A process a dead controller left is adopted through the
// keeper, which speaks the same protocol.
import type { Duplex } from 'node:stream';
import type {
  ClearUpOptions,
  ClearUpResult,
  Clock,
  HostRunner,
  ProcessSpec,
  RunningProcess,
  RunResult,
  StopOptions,
  StopResult,
  TaggedProcess,
} from '../../cluster/ports.js';
import {
  buildClusterFilesCommand,
  buildKeeperCommand,
  buildRemoteCommand,
  buildSweepCommand,
  CLUSTER_ID_ENV,
  PROCESS_NAME_ENV,
  quoteWord,
  type ClusterFiles,
} from '../../dask/remote-command.js';
import { runRemote, startRemote } from './remote-script.js';
import { ShellProcess } from './shell-process.js';
import { CONTROL_COMMAND_TIMEOUT_MS, type ShellPort } from '../../ssh/shell-port.js';
import { stopTagged } from './stop-tagged.js';
import { parseSweep, sweepLines } from '../../dask/sweep-script.js';

/** After KILL, how long a sweep waits for what it killed to be gone. */
const SWEEP_VERIFY_MS = 300;

/** Names the host a process was started for, next to the cluster id. */
export const HOST_TAG = 'SSHCLUSTER_HOST';

export interface HostRunnerOptions {
  host: string;
  clusterId: string;
  setup: string[];
  shell: ShellPort;
  /** Seconds a process outlives this controller waiting to be adopted (0: not at all). */
  orphanGraceS?: number;
  /** The host's remote_python and env: what runs cluster-files.py's removal, where its TMPDIR is. */
  python: string;
  env: Readonly<Record<string, string>>;
  /** What each process started there is given first (the cluster's TLS files, the scheduler preload). */
  files?: ClusterFiles;
  /** The cluster keeps files there (keepsFilesOn), so clearUp() has files to remove; default: files given. */
  keepsFiles?: boolean;
  /**
   * Every TMPDIR the cluster's files may be under there, asked at each clearUp(): `apply`
   * may have changed the host's env (ClusterState.tmpdirsOf). Default: its env's.
   */
  tmpdirs?: () => Iterable<string | undefined>;
  /**
   * How long a control command there (a scan, a kill, the files' removal) may take: the
   * host's `command_timeout`, for hosts slow to answer when many are busy at once.
   */
  commandTimeoutMs?: number;
  /** What a stop's waits (the grace, the check after KILL) run on; the system clock if not given. */
  clock?: Clock;
}

export type { TaggedProcess };

export class ShellHostRunner implements HostRunner {
  readonly host: string;
  private readonly keepsFiles: boolean;
  private readonly commandMs: number;
  constructor(private readonly o: HostRunnerOptions) {
    this.host = o.host;
    this.keepsFiles = o.keepsFiles ?? o.files !== undefined;
    this.commandMs = o.commandTimeoutMs ?? CONTROL_COMMAND_TIMEOUT_MS;
  }

  async start(spec: ProcessSpec): Promise<RunningProcess> {
    const env = { ...spec.env, [HOST_TAG]: this.host, [PROCESS_NAME_ENV]: spec.name };
    const { clusterId, orphanGraceS, files } = this.o;
    const command = buildRemoteCommand({
      setup: spec.setup ?? this.o.setup,
      env,
      name: spec.name,
      argv: spec.argv,
      clusterId,
      orphanGraceS,
      files,
    });
    const handle = await startRemote(this.o.shell, command);
    return new ShellProcess(spec, handle, this.o.shell, { commandTimeoutMs: this.commandMs });
  }

  /** Takes over `pid`, a process a previous controller started as `spec`. */
  async adopt(spec: ProcessSpec, pid: number): Promise<RunningProcess> {
    const python = spec.argv[0];
    if (python === undefined) throw new Error('adopt: empty argv');
    const command = buildKeeperCommand({
      setup: spec.setup ?? this.o.setup,
      env: spec.env,
      python,
      clusterId: this.o.clusterId,
      name: spec.name,
      pid,
    });
    const handle = await startRemote(this.o.shell, command);
    return new ShellProcess(spec, handle, this.o.shell, { commandTimeoutMs: this.commandMs });
  }

  async listTagged(): Promise<TaggedProcess[]> {
    const r = await this.o.shell.run(this.scanCommand(), { timeoutMs: this.commandMs });
    return parseTagged(r.stdout);
  }

  /** Shell text printing `/proc/<pid>/stat` of each process tagged ours on this host. */
  private scanCommand(): string {
    // environ is NUL-separated: `grep -z` reads each variable as a whole line, so ids
    // never match by prefix. Both the cluster id and this host's name must match: hosts
    // that share a kernel (containers, namespaces) must not see each other's processes
    // as theirs. Two greps over every process, not two processes per process (a loop
    // forking tr and grep per /proc entry took seconds on a loaded host).
    const id = quoteWord(`${CLUSTER_ID_ENV}=${this.o.clusterId}`);
    const host = quoteWord(`${HOST_TAG}=${this.host}`);
    // A grep without -z (old busybox) must not make the scan find nothing: the loop then.
    const fast =
      `f=$(grep -lzxF -e ${id} /proc/[0-9]*/environ 2>/dev/null); ` +
      `[ -n "$f" ] && for e in $(grep -lzxF -e ${host} $f 2>/dev/null); do cat "\${e%/environ}/stat" 2>/dev/null; done`;
    const slow =
      `for p in /proc/[0-9]*; do n=$(tr '\\0' '\\n' < "$p/environ" 2>/dev/null | grep -cxF -e ${id} -e ${host}); ` +
      `[ "$n" = 2 ] && cat "$p/stat" 2>/dev/null; done`;
    return `if printf 'a\\0' | grep -qzx a 2>/dev/null; then ${fast}; else ${slow}; fi; true`;
  }

  /**
   * TERM first (a launcher then stops its group and removes its orphan log); KILL what
   * stays. 'all': everything tagged, re-listed at each check so that nothing that
   * appears meanwhile is missed.
   */
  async stopTagged(pids: number[] | 'all', o: StopOptions): Promise<StopResult> {
    const tagged = async () => (await this.listTagged()).map((t) => t.pid);
    const target = {
      signal: (sig: 'TERM' | 'KILL', p: number[]) => this.signalPids(sig, p),
      alive: async (p: number[]) => {
        const live = await tagged();
        return pids === 'all' ? live : p.filter((x) => live.includes(x));
      },
    };
    return stopTagged(target, pids === 'all' ? await tagged() : pids, { ...o, clock: this.o.clock });
  }

  private async signalPids(signal: 'TERM' | 'KILL', pids: number[]): Promise<void> {
    if (!pids.length) return;
    await this.o.shell.run(`kill -${signal} ${pids.join(' ')} 2>/dev/null; true`, { timeoutMs: this.commandMs });
  }

  /** A short command on the host (version probes); bounded in time. */
  run(command: string, timeoutMs = this.commandMs): Promise<RunResult> {
    return this.o.shell.run(command, { timeoutMs });
  }

  /**
   * Everything tagged there stopped (stopTagged('all')), then the cluster's files
   * removed once nothing is left: the look, the stop of what it finds and the removal
   * are one exec (sweep-script.ts), so a host costs one login shell however it turns out.
   */
  async clearUp(o: ClearUpOptions): Promise<ClearUpResult> {
    const none = { stopped: [], forced: [], left: [] };
    // The host's last launcher looked and removed the files as it ended (launcher.py,
    // remove_if_last), under its own TMPDIR: what is left to do is under the others, if
    // any. Which one it had is not known here (an apply that changed the host's TMPDIR
    // mid-way leaves processes under both, and the old one's may end last), so each
    // TMPDIR the host had gets its removal then, the current one too.
    if (o.reportedClean) return this.keepsFiles ? { ...none, ...(await this.removeElsewhere({}, true)) } : none;
    const esc = { graceMs: o.force?.aborted ? 0 : o.graceMs, verifyMs: o.verifyMs ?? SWEEP_VERIFY_MS };
    const timeoutMs = this.commandMs + esc.graceMs + esc.verifyMs;
    const swept = this.keepsFiles
      ? await runRemote(this.o.shell, buildSweepCommand(this.filesCommand(), this.scanCommand(), esc), timeoutMs)
      : await this.o.shell.run([...sweepLines(this.scanCommand(), esc), 'true'].join('\n'), { timeoutMs });
    const report = parseSweep(swept.stdout);
    const pids = (lines: string[]) => parseTagged(lines.join('\n')).map((t) => t.pid);
    const stopped = { stopped: pids(report.found), forced: pids(report.forced), left: pids(report.left) };
    if (stopped.left.length || !this.keepsFiles) return stopped;
    return { ...stopped, ...(await this.removeElsewhere(removal(swept))) };
  }

  /** The files under the other TMPDIRs (one exec each; none unless `apply` changed the host's). */
  private async removeElsewhere(first: { filesError?: string }, current = false): Promise<{ filesError?: string }> {
    let result = first;
    const others = new Set(this.o.tmpdirs?.() ?? []);
    if (!current || others.size < 2) others.delete(this.o.env.TMPDIR);
    for (const tmpdir of others) {
      const { TMPDIR: _, ...rest } = this.o.env;
      const env = tmpdir === undefined ? rest : { ...rest, TMPDIR: tmpdir };
      const r = removal(
        await runRemote(this.o.shell, buildClusterFilesCommand({ ...this.filesCommand(), env }), this.commandMs),
      );
      result = result.filesError ? result : r;
    }
    return result;
  }

  private filesCommand() {
    return { setup: this.o.setup, env: this.o.env, python: this.o.python, clusterId: this.o.clusterId };
  }

  forwardOut(host: string, port: number): Promise<Duplex> {
    return this.o.shell.forwardOut(host, port);
  }

  onClose(cb: (err?: Error) => void): void {
    this.o.shell.onClose(cb);
  }

  close(): void {
    this.o.shell.close();
  }
}

/** `/proc/<pid>/stat`: "pid (comm) state ppid pgrp …"; comm may hold spaces and ")". */
export function parseStat(line: string): TaggedProcess | undefined {
  const close = line.lastIndexOf(')');
  const pid = Number(line.slice(0, line.indexOf(' ')));
  const [, ppid, pgid] = line
    .slice(close + 2)
    .split(' ')
    .map(Number);
  if (close < 0 || !Number.isInteger(pid) || !Number.isInteger(ppid) || !Number.isInteger(pgid)) return undefined;
  return { pid, ppid: ppid!, pgid: pgid! };
}

function parseTagged(stdout: string): TaggedProcess[] {
  return stdout.split('\n').flatMap((line) => {
    const p = parseStat(line);
    return p && p.pid > 1 ? [p] : [];
  });
}

/** How cluster-files.py remove went: nothing to say, or why the files are still there. */
/** 127: the host's remote_python is not there, so no launcher ran under it to write files. */
function removal(r: RunResult): { filesError?: string } {
  return r.code === 0 || r.code === 127
    ? {}
    : { filesError: `could not remove the cluster's files: ${lastLine(r.stderr) || `exit ${r.code}`}` };
}

function lastLine(text: string): string {
  return text.trim().split('\n').pop() ?? '';
}
