// Readers for the option sections shared by the top level and host entries.
import { DEFAULT_SCHEDULER_OPTIONS } from '../defaults.js';
import { BYTES_EXPECTED, DURATION_TOO_LONG, MAX_DURATION_MS, parseBytes, parseDuration } from '../durations.js';
import { parseJumpList } from '../hosts/host-address.js';
import { RESOURCE_NAME } from '../names.js';
import {
  CONNECT_KEYS,
  SCHEDULER_KEYS,
  SECTIONS,
  WORKER_KEYS,
  type HostAddress,
  type RawConnectOptions,
  type RawPath,
  type RawSchedulerOptions,
  type RawWorkerOptions,
} from '../schema.js';
import type { HostKeyPolicy, SecretSource } from '../spec.js';
import { recover, type Cursor } from './yaml-cursor.js';

type Fields = Map<string, Cursor>;

/** Present (non-null) value of a key, so `setup:` with nothing after it means unset. */
export function opt<T>(fields: Fields, key: string, read: (c: Cursor) => T): T | undefined {
  const c = fields.get(key);
  return c?.present ? recover(c, () => read(c)) : undefined;
}

export function section(c: Cursor | undefined, keys: readonly string[]): Fields {
  return c?.present ? (recover(c, () => c.entries(keys, { sections: SECTIONS })) ?? new Map()) : new Map();
}

export function readConnectOptions(c: Cursor | undefined): RawConnectOptions {
  const f = section(c, CONNECT_KEYS);
  return dropUndefined({
    username: opt(f, 'username', (v) => v.text()),
    port: opt(f, 'port', (v) => v.int(1, 65535)),
    identity_file: opt(f, 'identity_file', pathList),
    known_hosts: opt(f, 'known_hosts', (v) => v.string()),
    strict_host_key_checking: opt(f, 'strict_host_key_checking', hostKeyPolicy),
    proxy_jump: opt(f, 'proxy_jump', jumpList),
    connect_timeout_ms: opt(f, 'connect_timeout', positiveDurationMs),
    command_timeout_ms: opt(f, 'command_timeout', positiveDurationMs),
    password: opt(f, 'password', (v) => secret(v, 'password')),
    passphrase: opt(f, 'passphrase', (v) => secret(v, 'passphrase')),
    agent: opt(f, 'agent', agent),
  });
}

export function readSchedulerOptions(c: Cursor | undefined): RawSchedulerOptions {
  const f = section(c, SCHEDULER_KEYS);
  // Workers get the scheduler's address before it starts, so it cannot be "any free port".
  const port = opt(f, 'port', (v) => v.int(1, 65535));
  return dropUndefined({
    port,
    dashboard_address: opt(f, 'dashboard_address', (v) => dashboardAddress(v, port ?? DEFAULT_SCHEDULER_OPTIONS.port)),
    host: opt(f, 'host', (v) => v.string()),
    interface: opt(f, 'interface', (v) => v.string()),
  });
}

const DASHBOARD_EXPECTED = 'expected an address like ":8787" or "127.0.0.1:8787"';

/** As dask's --dashboard-address takes it ("host:port", ":port", "port"), on a port of its own. */
function dashboardAddress(v: Cursor, schedulerPort: number): string {
  const raw = v.text(DASHBOARD_EXPECTED);
  const address = /^[0-9]+$/.test(raw) ? `:${raw}` : raw;
  const m = /^(?:.*:)?(\d+)$/.exec(address.trim());
  if (!m || Number(m[1]) > 65535) return v.wrong(DASHBOARD_EXPECTED);
  if (Number(m[1]) === schedulerPort)
    v.fail(`expected a port other than the scheduler's (${schedulerPort}): both cannot listen on it`);
  return address;
}

export function readWorkerOptions(c: Cursor | undefined): RawWorkerOptions {
  const f = section(c, WORKER_KEYS);
  return dropUndefined({
    nthreads: opt(f, 'nthreads', (v) => v.int(1)),
    nworkers: opt(f, 'nworkers', (v) => v.int(1)),
    memory_limit: opt(f, 'memory_limit', memoryLimit),
    resources: opt(f, 'resources', resources),
    nanny: opt(f, 'nanny', (v) => v.bool()),
    death_timeout_s: opt(f, 'death_timeout', (v) => positiveDurationMs(v) / 1000),
    interface: opt(f, 'interface', (v) => v.string()),
  });
}

export function stringList(c: Cursor): string[] {
  if (!c.isSeq()) return [c.string('expected a string or a list of strings')];
  return c.items().map((item) => item.string());
}

/** Like stringList, each path with where it was written, for errors about the file it names. */
function pathList(c: Cursor): RawPath[] {
  if (!c.isSeq()) return [{ path: c.string('expected a string or a list of strings'), where: c.where() }];
  return c.items().map((item) => ({ path: item.string(), where: item.where() }));
}

export function durationMs(c: Cursor): number {
  const v = c.scalar('expected a duration');
  const ms = c.parse(() => parseDuration(typeof v === 'number' ? v : c.string()));
  if (ms > MAX_DURATION_MS) c.fail(DURATION_TOO_LONG);
  return ms;
}

function positiveDurationMs(c: Cursor): number {
  const ms = durationMs(c);
  if (ms <= 0) c.fail('expected a duration greater than zero');
  return ms;
}

export function bytes(c: Cursor): number {
  const v = c.scalar(BYTES_EXPECTED);
  return c.parse(() => parseBytes(typeof v === 'number' ? v : c.string(BYTES_EXPECTED)));
}

function hostKeyPolicy(c: Cursor): HostKeyPolicy {
  const expected = 'expected one of yes, accept-new, no';
  const v = c.scalar(expected);
  if (v === true || v === false) return v ? 'yes' : 'no';
  if (v === 'yes' || v === 'accept-new' || v === 'no') return v;
  return c.wrong(expected);
}

function agent(c: Cursor): boolean | string {
  const v = c.scalar('expected true, false or an agent socket path');
  if (typeof v === 'string' && v !== 'yes' && v !== 'no') return c.string();
  return c.bool();
}

function jumpList(c: Cursor): HostAddress[] {
  if (!c.isSeq()) return c.parse(() => parseJumpList(c.string('expected a host, a comma-separated list or "none"')));
  return c.items().flatMap((item) => item.parse(() => parseJumpList(item.string())));
}

/** Secrets come from a prompt or the environment; a value in the file is refused unread. */
function secret(c: Cursor, what: 'password' | 'passphrase'): SecretSource {
  const hint = `use "${what}: prompt" or "${what}: {env: VAR_NAME}"`;
  if (!c.isMap()) {
    if (c.scalar(`expected "prompt" or {env: VAR_NAME}`) === 'prompt') return { kind: 'prompt' };
    // Never echo the value: it may be the real secret.
    return c.fail(`a literal ${what} is not allowed in a host file (secrets do not belong in config files)`, hint);
  }
  const env = c.entries(['env']).get('env');
  if (!env?.present) return c.fail('expected {env: VAR_NAME}', hint);
  return { kind: 'env', variable: envName(env) };
}

export const ENV_NAME = {
  re: /^[A-Za-z_][A-Za-z0-9_]*$/,
  expected: 'expected an environment variable name (letters, digits, _)',
};

function envName(c: Cursor): string {
  const name = c.text(ENV_NAME.expected);
  if (!ENV_NAME.re.test(name)) c.fail(ENV_NAME.expected);
  return name;
}

function memoryLimit(c: Cursor): string {
  const v = c.scalar('expected "auto", a size like "4GiB", or a fraction like 0.5');
  if (typeof v === 'number') return bytesOrFraction(c, v);
  const s = c.string();
  if (s === 'auto' || /^[0-9]*\.?[0-9]+$/.test(s)) return s;
  c.parse(() => parseBytes(s));
  // Dask reads "4 GiB" too, but the value travels through a remote shell command line.
  return s.replace(/\s+/g, '');
}

function bytesOrFraction(c: Cursor, v: number): string {
  if (v < 0 || !Number.isFinite(v)) c.fail('expected "auto", a size, or a number >= 0');
  return String(v);
}

function resources(c: Cursor): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key, v] of c.entries('any', { keyPattern: RESOURCE_NAME })) {
    const n = v.number('expected a number');
    if (n < 0 || !Number.isFinite(n)) v.fail('expected a number >= 0');
    out[key] = n;
  }
  return out;
}

export function dropUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
