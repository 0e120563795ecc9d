// Defaults shared by host files and the local cluster. Dask's own defaults where Dask
// has one that makes sense without knowing the remote machine.
import type { AdaptiveSpec, SchedulerOptions, WorkerOptions } from './spec.js';

export const DEFAULT_SCHEDULER_OPTIONS: SchedulerOptions = { port: 8786, dashboardAddress: '127.0.0.1:8787' };

/**
 * `dask worker` would use all cores in one process, but the core count of a remote
 * host is unknown until we connect; config.example.yaml's (2 threads, 1 process) is the
 * predictable choice, and `check` reports the real cores.
 */
export const DEFAULT_WORKER_OPTIONS: WorkerOptions = {
  nthreads: 2,
  nworkers: 1,
  memoryLimit: 'auto',
  resources: {},
  nanny: true,
  deathTimeoutS: 60,
};

/** distributed.deploy.adaptive defaults; `maximum` is filled in per cluster. */
export const DEFAULT_ADAPTIVE: Omit<AdaptiveSpec, 'maximum'> = {
  minimum: 0,
  intervalMs: 1000,
  waitCount: 3,
  targetDurationMs: 5000,
};

/**
 * The shortest adaptive step interval. Each step asks the scheduler for its target and
 * its workers over HTTP; Dask's default is 1 s and it sets no floor, but `--interval 0`
 * made 2,172 steps in seconds at 48 % CPU (issue 11). 100 ms stays well above the cost
 * of those two requests.
 */
export const MIN_ADAPTIVE_INTERVAL_MS = 100;

/** Not a command: the first interpreter on the host that has distributed (dask/remote-shell.ts). */
export const DEFAULT_REMOTE_PYTHON = 'auto';
export const DEFAULT_SSH_PORT = 22;
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
export const DEFAULT_KNOWN_HOSTS = '~/.ssh/known_hosts';
/** What OpenSSH tries when nothing is configured; the ssh layer skips missing files. */
export const DEFAULT_IDENTITY_FILES = ['~/.ssh/id_ed25519', '~/.ssh/id_ecdsa', '~/.ssh/id_rsa'];
