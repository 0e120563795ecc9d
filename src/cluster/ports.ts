// Ports of the cluster core. Adapters implement them in app/ (app/transport: the host
// runner over SSH or a local shell; the scheduler client from dask/); the core and its
// tests see only these interfaces.
import type { Duplex } from 'node:stream';
import type { PendingGroup } from './placement/demand.js';

/** What to run: a remote process is {name, host, argv, env} in … */
export interface ProcessSpec {
  /** Stable name, e.g. "scheduler" or "node1-0"; also the Dask worker name. */
  name: string;
  host: string;
  role: 'scheduler' | 'worker';
  argv: string[];
  env: Record<string, string>;
  /** Shell lines run before it (the host listing's `setup`); default: those of the runner's host. */
  setup?: readonly string[];
}

export interface ExitInfo {
  code: number | null;
  signal: string | null;
}

export type LineStream = 'stdout' | 'stderr';

/** … and {lines, exit} out. */
export interface RunningProcess {
  /** Its ProcessSpec's name (the spec itself, argv and env, is not kept: 40,000 of them at 10,000 hosts). */
  readonly name: string;
  /** Remote PID (also its process-group id), known once the launcher reports it. */
  readonly pid: Promise<number>;
  /** Each output line from now on; returns the way to stop listening. */
  onLine(cb: (stream: LineStream, line: string) => void): () => void;
  /** Output over the process's budget was dropped: how much, as a sentence to show. */
  onDropped?(cb: (text: string) => void): void;
  readonly exited: Promise<ExitInfo>;
  /**
   * SIGTERM to the process group, SIGKILL after graceMs (at once when `force` is
   * aborted). Resolves with how it ended. `clusterEnds` (teardown's stop): the process
   * that ends last on its host also removes the cluster's files there, and says so
   * (`hostClean`: nothing else of the cluster runs on its host, the files are gone).
   */
  stop(
    graceMs: number,
    force?: AbortSignal,
    o?: { clusterEnds?: boolean },
  ): Promise<{ forced: boolean; exit: ExitInfo; hostClean?: boolean }>;
}

/** A process carrying this cluster's tags: its parent (a launcher's child has the launcher) and its group. */
export interface TaggedProcess {
  pid: number;
  ppid: number;
  pgid: number;
}

export interface StopOptions {
  /** Wait after SIGTERM; 0: SIGKILL at once. */
  graceMs: number;
  /** Wait after SIGKILL before what is alive counts as left. */
  verifyMs?: number;
  /** Aborted: no more grace. */
  force?: AbortSignal;
}

export interface StopResult {
  /** PIDs it found running and stopped (or tried to). */
  stopped: number[];
  /** PIDs that needed SIGKILL. */
  forced: number[];
  /** PIDs still alive after SIGKILL. */
  left: number[];
}

export interface ClearUpOptions extends StopOptions {
  /**
   * The host's last process said, as it ended, that nothing of the cluster is left there
   * and the files are gone (a teardown stop's `hostClean`): no look is needed.
   */
  reportedClean?: boolean;
}

export interface ClearUpResult extends StopResult {
  /** Nothing was left, but the files could not be removed: why. */
  filesError?: string;
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** One host's execution port: starts and adopts processes, finds and stops what of ours runs. */
export interface HostRunner {
  readonly host: string;
  start(spec: ProcessSpec): Promise<RunningProcess>;
  /** Takes over `pid`, a process a previous controller started as `spec`. */
  adopt(spec: ProcessSpec, pid: number): Promise<RunningProcess>;
  /** Processes tagged with this runner's cluster id (and host) still alive there. */
  listTagged(): Promise<TaggedProcess[]>;
  /** The one stop escalation (TERM → wait → KILL → verify) for tagged PIDs ('all': every one). */
  stopTagged(pids: number[] | 'all', o: StopOptions): Promise<StopResult>;
  /** A short command on the host (version probes); bounded in time. */
  run(command: string, timeoutMs?: number): Promise<RunResult>;
  /**
   * stopTagged('all'), then the files the cluster keeps on the host (the scheduler preload, TLS material)
   * removed once nothing of ours is left there.
   */
  clearUp(o: ClearUpOptions): Promise<ClearUpResult>;
  /** A TCP stream to host:port as seen from that machine. */
  forwardOut(host: string, port: number): Promise<Duplex>;
  /** Called once when the connection dies (not after close()). */
  onClose(cb: (err?: Error) => void): void;
  close(): void;
}

/**
 * What retire_workers did. Dask (2022.12 and 2024.12 alike) answers with the workers it
 * retired only: one holding results no other running worker can take (none left, or all
 * the others paused or retiring too) is left out and keeps running, its retirement
 * aborted. `kept` are those; `results`, how many results only they hold, when the
 * scheduler said (sshcluster's preload does, Dask's own route does not).
 */
export interface RetireOutcome {
  retired: string[];
  kept: { address: string; results?: number }[];
}

export interface RegisteredWorker {
  name: string;
  address: string;
}

/** What the core asks the scheduler (the HTTP API; SchedulerClient fits as it is). */
export interface SchedulerPort {
  health(): Promise<boolean>;
  workers(): Promise<RegisteredWorker[]>;
  /**
   * Data moves first, so this may take long; resolves with the retired addresses and
   * those the scheduler kept because results only they hold could not move.
   * `keep`: the scheduler keeps them (closing gracefully) until their processes end,
   * for the stop that follows at once (every retire of ours: scale-down, drain, restarts,
   * teardown; SchedulerClient.retireWorkers says why).
   */
  retireWorkers(addresses: readonly string[], opts?: { keep?: boolean }): Promise<RetireOutcome>;
  adaptiveTarget(): Promise<number>;
  /**
   * The workers with size and load: from the preload when it answers, else the identity
   * document, else the plain worker list (no metrics). A scheduler that failed to serve
   * identity.json once (distributed 2024.x while tasks finish) is not asked it again.
   */
  identityOrWorkers(): Promise<{ workers: SchedulerWorker[] }>;
  /**
   * Pending work by resource restriction set (the scheduler preload); undefined without
   * it. `registered`: the workers as identityOrWorkers() gives them, when the preload said.
   */
  demand(): Promise<
    | {
        groups: PendingGroup[];
        plainPending: number;
        registered?: SchedulerWorker[];
        /** The process that answered and its ancestors (start-up tells our scheduler from another). */
        pids?: number[];
      }
    | undefined
  >;
}

/** A worker as the scheduler's identity document describes it (what adaptive reads). */
export interface SchedulerWorker extends RegisteredWorker {
  nthreads: number;
  /** Bytes; 0 means no limit. */
  memoryLimit: number;
  metrics?: { cpu?: number; memory?: number; executing?: number };
}

/** Time for the core: injected so tests step it by hand. */
export interface Clock {
  now(): number;
  /** Calls fn after ms; returns a cancel function. Never keeps the process alive. */
  after(ms: number, fn: () => void): () => void;
}

/**
 * What the core reads in Dask's output and how it reaches the scheduler's API: dask/'s
 * parsers and client, handed in by app/ (the core knows no Dask line format).
 */
export interface DaskPort {
  /** The scheduler's HTTP API over a stream to it (opened at each request). */
  scheduler(connect: () => Promise<Duplex>): SchedulerPort;
  /** A scheduler line saying where it really serves its dashboard. */
  dashboardAt(line: string): { host: string | undefined; port: number } | undefined;
  /** A worker line saying it registered with the scheduler. */
  registered(line: string): boolean;
  /** Why a process ended, for a person (its exit, the tail of its output). */
  describeExit(exit: ExitInfo, tail: readonly string[], python: string, firstError?: string): string;
}
