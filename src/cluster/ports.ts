// Ports of the cluster core. Adapters (ssh/, the local child-process runner) implement
// them in app/; the core and its tests see only these interfaces.

/** What to run: a remote process is {name, host, argv, env} in … */
export interface ProcessSpec {
  /** Stable name, e.g. "scheduler" or "node1-0"; also the Dask worker name. */
  name: string;
  host: string;
  role: 'scheduler' | 'worker';
  argv: string[];
  env: Record<string, string>;
}

export interface ExitInfo {
  code: number | null;
  signal: string | null;
}

export type LineStream = 'stdout' | 'stderr';

/** … and {lines, exit} out. */
export interface RunningProcess {
  readonly spec: ProcessSpec;
  /** Remote PID (also its process-group id), known once the launcher reports it. */
  readonly pid: Promise<number>;
  onLine(cb: (stream: LineStream, line: string) => void): void;
  /** Output over the process's budget was dropped: how much, as a sentence to show. */
  onDropped?(cb: (text: string) => void): void;
  readonly exited: Promise<ExitInfo>;
  /** SIGTERM to the process group, SIGKILL after graceMs. Resolves with how it ended. */
  stop(graceMs: number): Promise<{ forced: boolean; exit: ExitInfo }>;
}

/** One host's execution port: starts processes, lists what of ours still runs. */
export interface HostRunner {
  readonly host: string;
  start(spec: ProcessSpec): Promise<RunningProcess>;
  /** PIDs of processes tagged with this cluster id still alive on the host. */
  listTagged(clusterId: string): Promise<number[]>;
  /** SIGKILL these PIDs (last resort after a teardown). */
  killPids(pids: number[]): Promise<void>;
  close(): void;
}
