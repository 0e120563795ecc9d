// The cluster `sshcluster up` starts without a host file: scheduler and workers as
// child processes on this machine, split like Dask's LocalCluster.
import { DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_SCHEDULER_OPTIONS, DEFAULT_WORKER_OPTIONS } from './defaults.js';
import type { ClusterSpec, ConnectSpec, HostSpec } from './spec.js';

export interface LocalOptions {
  cores: number;
  /** Total memory; split evenly between workers as LocalCluster's memory_limit="auto" does. 0: leave it to dask ("auto"). */
  memoryBytes: number;
  python: string;
  nworkers?: number;
  nthreads?: number;
  username?: string;
  /** Loopback only, so plain TCP unless asked (`up --security tls`). */
  tls?: boolean;
}

export function localClusterSpec(opts: LocalOptions): ClusterSpec {
  const { nworkers, nthreads } = localSplit(opts.cores, opts.nworkers, opts.nthreads);
  const memoryLimit = opts.memoryBytes > 0 ? String(Math.floor(opts.memoryBytes / nworkers)) : 'auto';
  const host = (maxWorkers: number): HostSpec => ({
    name: 'localhost',
    connect: localConnect(opts.username ?? ''),
    remotePython: opts.python,
    env: {},
    setup: [],
    workerOptions: { ...DEFAULT_WORKER_OPTIONS, resources: {}, nthreads, nworkers, memoryLimit },
    maxWorkers,
  });
  return {
    name: 'local',
    local: true,
    schedulerHost: host(0),
    // Loopback only, as LocalCluster: a laptop cluster should not listen on the network.
    schedulerOptions: { ...DEFAULT_SCHEDULER_OPTIONS, host: '127.0.0.1' },
    workerHosts: [host(nworkers)],
    security: opts.tls ? { kind: 'tls' } : { kind: 'none' },
  };
}

/**
 * The split a local cluster was started with (`up --nworkers/--nthreads`, else this
 * machine's at the time), for a re-adopting `up` given no such flag: its workers run with
 * it, and a restart or scale must go by it too.
 */
export function withLocalSplitOf(spec: ClusterSpec, previous: Pick<ClusterSpec, 'workerHosts'>): ClusterSpec {
  const was = previous.workerHosts[0];
  if (!was) return spec;
  const { nworkers, nthreads, memoryLimit } = was.workerOptions;
  return {
    ...spec,
    workerHosts: spec.workerHosts.map((h) => ({
      ...h,
      workerOptions: { ...h.workerOptions, nworkers, nthreads, memoryLimit },
      maxWorkers: was.maxWorkers,
    })),
  };
}

/** distributed.deploy.utils.nprocesses_nthreads plus LocalCluster's handling of one given value. */
export function localSplit(
  cores: number,
  nworkers?: number,
  nthreads?: number,
): { nworkers: number; nthreads: number } {
  const n = Math.max(1, Math.floor(cores));
  if (nworkers !== undefined && nthreads !== undefined) return { nworkers, nthreads };
  if (nthreads !== undefined) return { nworkers: Math.max(1, Math.floor(n / nthreads)), nthreads };
  if (nworkers !== undefined) return { nworkers, nthreads: Math.max(1, Math.ceil(n / nworkers)) };
  if (n <= 4) return { nworkers: n, nthreads: 1 };
  const procs = smallestFactorAtLeastSqrt(n);
  return { nworkers: procs, nthreads: Math.floor(n / procs) };
}

function smallestFactorAtLeastSqrt(n: number): number {
  for (let f = Math.ceil(Math.sqrt(n)); f <= n; f++) if (n % f === 0) return f;
  return n;
}

/** Never used to connect (local: true); filled so every HostSpec has the same shape. */
function localConnect(username: string): ConnectSpec {
  return {
    alias: 'localhost',
    hostname: '127.0.0.1',
    port: 22,
    username,
    identityFiles: [],
    knownHosts: '',
    strictHostKeyChecking: 'no',
    proxyJump: [],
    connectTimeoutMs: DEFAULT_CONNECT_TIMEOUT_MS,
  };
}
