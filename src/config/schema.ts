// The host file as written: keys as the user spells them (snake_case, Dask's names),
// every field optional, per-host overrides not yet merged. Values are already checked
// and parsed (durations in ms, sizes in bytes) because only the reader knows where
// they were written.
import type { HostKeyPolicy, SecretSource } from './spec.js';
import type { Where } from './config-error.js';

export const TOP_KEYS = [
  'name',
  'connect_options',
  'remote_python',
  'env',
  'setup',
  'scheduler_options',
  'worker_options',
  'hosts',
  'scheduler_host',
  'adaptive',
  'security',
] as const;
export const CONNECT_KEYS = [
  'username',
  'port',
  'identity_file',
  'known_hosts',
  'strict_host_key_checking',
  'proxy_jump',
  'connect_timeout',
  'command_timeout',
  'password',
  'passphrase',
  'agent',
] as const;
export const SCHEDULER_KEYS = ['port', 'dashboard_address', 'host', 'interface'] as const;
export const WORKER_KEYS = [
  'nthreads',
  'nworkers',
  'memory_limit',
  'resources',
  'nanny',
  'death_timeout',
  'interface',
] as const;
export const HOST_KEYS = [
  'host',
  'connect_options',
  'remote_python',
  'env',
  'setup',
  'worker_options',
  'max_workers',
] as const;
export const ADAPTIVE_KEYS = [
  'minimum',
  'maximum',
  'interval',
  'wait_count',
  'target_duration',
  'minimum_cores',
  'maximum_cores',
  'minimum_memory',
  'maximum_memory',
  'groups',
] as const;
export const GROUP_KEYS = ['hosts', 'minimum', 'maximum'] as const;

/** `security:` as a mapping: the user's own certificates, Dask's names (distributed.comm.tls). */
export const SECURITY_KEYS = ['ca_file', 'scheduler', 'worker', 'client'] as const;
export const TLS_PAIR_KEYS = ['cert', 'key'] as const;

/** Lets "port: 22" written on a host say it belongs under connect_options. */
export const SECTIONS: Record<string, readonly string[]> = {
  connect_options: CONNECT_KEYS,
  worker_options: WORKER_KEYS,
  scheduler_options: SCHEDULER_KEYS,
  adaptive: ADAPTIVE_KEYS,
};

/** One ProxyJump hop as written: "bastion", "user@bastion:2222". */
export interface HostAddress {
  user?: string;
  host: string;
  port?: number;
}

export interface RawConnectOptions {
  username?: string;
  port?: number;
  /** As written, with where; "~" is expanded during normalization. */
  identity_file?: RawPath[];
  known_hosts?: string;
  strict_host_key_checking?: HostKeyPolicy;
  /** [] means "none": no jump even if ~/.ssh/config has one. */
  proxy_jump?: HostAddress[];
  connect_timeout_ms?: number;
  command_timeout_ms?: number;
  password?: SecretSource;
  passphrase?: SecretSource;
  /** false: no agent; a string: that socket instead of $SSH_AUTH_SOCK. */
  agent?: boolean | string;
}

export interface RawSchedulerOptions {
  port?: number;
  dashboard_address?: string;
  host?: string;
  interface?: string;
}

export interface RawWorkerOptions {
  nthreads?: number;
  nworkers?: number;
  memory_limit?: string;
  resources?: Record<string, number>;
  nanny?: boolean;
  death_timeout_s?: number;
  interface?: string;
}

/** Settings a host entry may override. */
export interface RawHostSettings {
  connect_options: RawConnectOptions;
  remote_python?: string;
  env: Record<string, string>;
  setup?: string[];
  worker_options: RawWorkerOptions;
}

export interface RawHostEntry extends RawHostSettings {
  /** The names after range expansion, in order. */
  names: string[];
  user?: string;
  port?: number;
  max_workers?: number;
  where: Where;
  maxWorkersWhere?: Where;
  /** Where the entry's own worker_options are, when it has them. */
  workerOptionsWhere?: Where;
}

export interface RawAdaptive {
  minimum?: number;
  maximum?: number;
  interval_ms?: number;
  wait_count?: number;
  target_duration_ms?: number;
  minimum_cores?: number;
  maximum_cores?: number;
  minimum_memory?: number;
  maximum_memory?: number;
  groups?: RawAdaptiveGroup[];
  minimumWhere?: Where;
  maximumCoresWhere?: Where;
  maximumMemoryWhere?: Where;
}

/** adaptive.groups.<name> as written; `patterns` are matched once the layout is known. */
export interface RawAdaptiveGroup {
  name: string;
  patterns: string[];
  minimum?: number;
  maximum?: number;
  where: Where;
  hostsWhere: Where;
  minimumWhere?: Where;
  maximumWhere?: Where;
}

/** A path as written ("~" and relative paths not yet resolved) and where. */
export interface RawPath {
  path: string;
  where: Where;
}

export interface RawTlsPair {
  cert: RawPath;
  key: RawPath;
}

/** `security: none | tls`, or the user's own files. */
export type RawSecurity =
  | { kind: 'none' | 'tls'; where: Where }
  | { kind: 'files'; ca_file: RawPath; scheduler: RawTlsPair; worker: RawTlsPair; client: RawTlsPair; where: Where };

export interface RawHostFile extends RawHostSettings {
  name?: string;
  scheduler_options: RawSchedulerOptions;
  hosts: RawHostEntry[];
  scheduler_host?: { address: HostAddress; where: Where };
  adaptive?: RawAdaptive;
  security?: RawSecurity;
  where: Where;
}
