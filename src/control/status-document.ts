// The `status --json` document: what the control socket's `status` method answers, the
// contract scripts rely on (documented in docs/reference.md), and what the dashboard reads. One
// type, here below both app/ (which builds it) and ui/ (which shows it).

/** held: no longer wanted, kept running because the scheduler could not move results only it holds. */
export type WorkerState = 'starting' | 'running' | 'retiring' | 'held' | 'stopped' | 'crashed' | 'restarting';
/** draining: taken out (drain, or removed by apply) with workers still retiring; drained: none left. */
export type HostStatusState = 'connecting' | 'up' | 'degraded' | 'unreachable' | 'draining' | 'drained';

/** How a host's state reads: one connecting again after it failed (it has a last error) is "reconnecting". */
export function shownHostState(state: string, lastError: string | null | undefined): string {
  return state === 'connecting' && lastError ? 'reconnecting' : state;
}

export interface StatusJson {
  name: string;
  clusterId: string;
  schedulerAddress: string;
  dashboardUrl: string;
  startedAt: string;
  uptimeS: number;
  controllerPid: number;
  desiredWorkers: number;
  hosts: {
    name: string;
    roles: ('scheduler' | 'worker')[];
    state: HostStatusState;
    lastError: string | null;
    workers: number;
  }[];
  workers: WorkerStatus[];
  /** null while the cluster has never been adaptive. */
  adaptive: AdaptiveStatus | null;
  /** The last 50 things that happened, oldest first (absent from controllers before events existed). */
  events?: ClusterStatusEvent[];
  /** Optional, from the scheduler (absent when it did not answer in time, or without sshcluster's preload). */
  tasks?: TaskFigures;
  /** The TLS certificates' end; null without TLS (absent from older controllers). */
  certificates?: CertificatesStatus | null;
}

/** When the cluster's TLS certificates end: no new worker or client connects after. */
export interface CertificatesStatus {
  /** ISO 8601: the earliest end of the CA's and the leaves' validity. */
  notAfter: string;
  /** Whole days left, rounded down; negative once expired. */
  expiresInDays: number;
  /** Set from 7 days before the end, and once it has passed. */
  warning: string | null;
}

/** The cluster's work as the scheduler sees it. */
export interface TaskFigures {
  /** Tasks held by state, Dask's names (processing, queued, no-worker, waiting, memory, erred, released); zero counts left out. */
  byState: Record<string, number>;
  /**
   * The newest computation (a client's burst of work): done and erred of total (an erred
   * task stays erred after its client left); killedWorkers: workers that died running its
   * tasks; prefixes: the same by task prefix, most erred first. null before any.
   */
  progress: {
    done: number;
    total: number;
    erred: number;
    killedWorkers?: number;
    prefixes?: { prefix: string; done: number; erred: number; total: number; killedWorkers: number }[];
  } | null;
  /** Clients connected to the scheduler. */
  clients: number;
  /** The scheduler process: percent of one core, RSS in bytes. */
  schedulerCpu: number;
  schedulerMemoryBytes: number;
}

export interface ClusterStatusEvent {
  time: string;
  level: 'info' | 'warning' | 'error';
  /** A host, a process name, or "sshcluster". */
  subject: string;
  text: string;
}

/** Restarts of any kind: ours, and its nanny's of the worker process. */
export function allRestarts(w: Pick<WorkerStatus, 'restarts' | 'nannyRestarts'>): number {
  return w.restarts + (w.nannyRestarts ?? 0);
}

export interface WorkerStatus {
  name: string;
  host: string;
  pid: number | null;
  state: WorkerState;
  restarts: number;
  /** Worker processes its nanny restarted (the process we started lived on). */
  nannyRestarts?: number;
  /** The address the scheduler lists this worker under; null while not registered. */
  address: string | null;
  /** A held worker's results only it holds (absent: not held, or the scheduler did not say). */
  heldResults?: number;
  nthreads: number;
  /** Optional, from the scheduler (status-metrics.ts): percent of one core. */
  cpu?: number;
  /** Optional: the worker process's RSS in bytes. */
  memoryBytes?: number;
  /** Optional: the scheduler's memory limit of this worker in bytes (absent: none). */
  memoryLimitBytes?: number;
  /** Optional: tasks executing now (from /json/identity.json, when the preload is absent). */
  executing?: number;
  /** Optional: tasks assigned to it (executing or ready there). */
  processing?: number;
  /** Optional: results it holds. */
  inMemory?: number;
  /** Optional: seconds it has had nothing to process; absent while busy. */
  idleS?: number;
}

export interface AdaptiveStatus {
  enabled: boolean;
  minimum: number;
  maximum: number | null;
  intervalMs: number;
  waitCount: number;
  targetDurationMs: number;
  /** Bounds in cores and memory (bytes), when given. */
  minimumCores?: number;
  maximumCores?: number;
  minimumMemory?: number;
  maximumMemory?: number;
  target: number | null;
  /** Demand the hosts cannot meet now, one line per kind: "want 3 GPU workers, 1 placeable: gpu2 unreachable". */
  unmet: string[];
  lastDecision: { decision: string; reason: string; time: string } | null;
  log: { time: string; target: number; current: number; decision: string; reason: string; count: number }[];
}
