// The normalized cluster description every other layer works from. The file-as-written
// type lives in schema.ts; nothing here knows about YAML positions.

export type HostKeyPolicy = 'yes' | 'accept-new' | 'no';

/** Where a secret comes from. The secret itself is never stored in a spec. */
export type SecretSource = { kind: 'env'; variable: string } | { kind: 'prompt' };

export interface ConnectSpec {
  /** The host as written in the host file (an ~/.ssh/config alias or a name/IP). */
  alias: string;
  /** What to connect to after ~/.ssh/config HostName resolution. */
  hostname: string;
  port: number;
  username: string;
  /** Candidate private keys, tried in order (after the agent). Paths are absolute. */
  identityFiles: string[];
  /** Path of the ssh-agent socket, when one should be used. */
  agent?: string;
  password?: SecretSource;
  passphrase?: SecretSource;
  knownHosts: string;
  strictHostKeyChecking: HostKeyPolicy;
  /** Hops to go through first, outermost first (OpenSSH ProxyJump). */
  proxyJump: ConnectSpec[];
  connectTimeoutMs: number;
  /**
   * How long a short command we run on the host (a scan, a kill, the files' removal) may
   * take (`command_timeout`); unset: CONTROL_COMMAND_TIMEOUT_MS (15 s).
   */
  commandTimeoutMs?: number;
}

export interface SchedulerOptions {
  port: number;
  /** As dask's --dashboard-address: ":8787", "127.0.0.1:8787". */
  dashboardAddress: string;
  /** Extra --host for the scheduler, when the user sets one. */
  host?: string;
  interface?: string;
}

export interface WorkerOptions {
  nthreads: number;
  nworkers: number;
  /** "auto", "4GiB", "0" … passed through to dask. */
  memoryLimit: string;
  resources: Record<string, number>;
  nanny: boolean;
  /** Seconds a worker waits for a scheduler before it gives up. */
  deathTimeoutS: number;
  interface?: string;
}

export interface AdaptiveSpec {
  minimum: number;
  maximum: number;
  intervalMs: number;
  waitCount: number;
  targetDurationMs: number;
  minimumCores?: number;
  maximumCores?: number;
  minimumMemory?: number;
  maximumMemory?: number;
  /** adaptive.groups: bounds on the workers of some hosts, within minimum/maximum. */
  groups?: AdaptiveGroupSpec[];
}

export interface AdaptiveGroupSpec {
  name: string;
  /** Worker host names the group's pattern matched, in host-file order. */
  hosts: string[];
  minimum: number;
  /** Default: the group's slots (sum of its hosts' max_workers). */
  maximum: number;
}

export interface HostSpec {
  /** Unique, stable name of this host within the cluster (the alias as written). */
  name: string;
  connect: ConnectSpec;
  remotePython: string;
  env: Record<string, string>;
  setup: string[];
  workerOptions: WorkerOptions;
  /** Upper bound of worker processes on this host (default: nworkers). */
  maxWorkers: number;
}

/** Absolute paths on this machine, PEM files. */
export interface TlsPairFiles {
  cert: string;
  key: string;
}

/** The user's own certificates (`security: {ca_file, …}`). */
export interface TlsFilesSpec {
  caFile: string;
  scheduler: TlsPairFiles;
  worker: TlsPairFiles;
  client: TlsPairFiles;
}

/**
 * How the cluster's processes talk. `tls`: mutual TLS with a CA made for this cluster,
 * or, with `files`, the user's own certificates. `none`: plain TCP, unauthenticated.
 */
export type SecuritySpec = { kind: 'none' } | { kind: 'tls'; files?: TlsFilesSpec };

export interface ClusterSpec {
  name: string;
  /** The host file it came from; undefined for the local (no-SSH) cluster. */
  source?: string;
  /** true: everything runs as child processes on this machine, no SSH. */
  local: boolean;
  schedulerHost: HostSpec;
  schedulerOptions: SchedulerOptions;
  /** Hosts that run workers. The scheduler host is among them only when listed twice or local. */
  workerHosts: HostSpec[];
  adaptive?: AdaptiveSpec;
  /** Absent in state files written before TLS existed: those clusters run plain TCP. */
  security?: SecuritySpec;
}

/** Every host of the spec once, the scheduler host first. */
/** A worker host's entry in `spec` (the scheduler's host has one when it runs workers too). */
export function workerHostOf(spec: Pick<ClusterSpec, 'workerHosts'>, host: string): HostSpec | undefined {
  return hostIndex(spec.workerHosts).get(host);
}

/**
 * Worker hosts by name, the first of each name as `find` would give. A spec is replaced
 * whole, never changed in place, so the index of one list holds for its life: status and
 * the tick ask per process, and a scan each time grows with hosts × workers.
 */
const indexes = new WeakMap<readonly HostSpec[], ReadonlyMap<string, HostSpec>>();
function hostIndex(hosts: readonly HostSpec[]): ReadonlyMap<string, HostSpec> {
  let index = indexes.get(hosts);
  if (!index) {
    const m = new Map<string, HostSpec>();
    for (const h of hosts) if (!m.has(h.name)) m.set(h.name, h);
    indexes.set(hosts, (index = m));
  }
  return index;
}

export function clusterHosts<T extends { name: string }>(spec: { schedulerHost: T; workerHosts: readonly T[] }): T[] {
  const seen = new Map<string, T>([[spec.schedulerHost.name, spec.schedulerHost]]);
  for (const h of spec.workerHosts) if (!seen.has(h.name)) seen.set(h.name, h);
  return [...seen.values()];
}
