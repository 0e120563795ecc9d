// Top level and host entries of the host file: YAML document → RawHostFile.
import { readAdaptiveGroups } from '../adaptive-groups.js';
import { expandHostPattern } from '../hosts/host-ranges.js';
import { parseHostAddress } from '../hosts/host-address.js';
import { MIN_ADAPTIVE_INTERVAL_MS } from '../defaults.js';
import { CLUSTER_NAME } from '../names.js';
import {
  ADAPTIVE_KEYS,
  HOST_KEYS,
  SECTIONS,
  TOP_KEYS,
  type RawAdaptive,
  type RawHostEntry,
  type RawHostFile,
  type RawHostSettings,
} from '../schema.js';
import {
  bytes,
  dropUndefined,
  durationMs,
  ENV_NAME,
  opt,
  readConnectOptions,
  readSchedulerOptions,
  readWorkerOptions,
  section,
  stringList,
} from './read-options.js';
import { readSecurity } from './read-security.js';
import { ConfigError, configErrors } from '../../errors.js';
import { configError } from '../config-error.js';
import { Cursor, positionKey, recover, type Source } from './yaml-cursor.js';

const NO_HOSTS_HINT = 'add "hosts: [node1, node2]": the first host runs the scheduler, the others workers';

/** Every error the file's reading meets (up to a bound), or its contents as written. */
export function readHostFile(src: Source): RawHostFile {
  const errors: ConfigError[] = [];
  const unknownKeysIn = new Map<string, ConfigError[]>();
  let raw: RawHostFile | undefined;
  try {
    raw = readTop({ ...src, errors, unknownKeysIn });
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    errors.push(err);
  }
  if (!errors.length && raw) return raw;
  // `{hots: [a]}` lacks "hosts" too: say the misspelt key, not also the missing one.
  throw configErrors(errors.filter((e) => unknownKeysIn.get(positionKey(e.position))?.includes(e) ?? true));
}

function readTop(src: Source): RawHostFile {
  const root = new Cursor(src, src.doc.contents ?? undefined, '');
  if (!root.present) root.fail('the host file is empty; expected a mapping with a "hosts" list');
  if (root.isSeq()) root.fail('expected a mapping with a "hosts" key', 'put the list of hosts under "hosts:"');
  const f = root.entries(TOP_KEYS, { sections: SECTIONS });
  const hosts = f.get('hosts');
  if (!hosts?.present) {
    const where = hosts?.where() ?? { ...root.where(), keyPath: 'hosts' };
    throw configError(where, 'no hosts: expected a non-empty "hosts" list', NO_HOSTS_HINT);
  }
  const schedulerHost = opt(f, 'scheduler_host', (c) => ({
    address: c.parse(() => parseHostAddress(c.string())),
    where: c.where(),
  }));
  return dropUndefined({
    ...readSettings(f),
    name: opt(f, 'name', clusterName),
    scheduler_options: readSchedulerOptions(f.get('scheduler_options')),
    hosts: readHosts(hosts),
    scheduler_host: schedulerHost,
    adaptive: opt(f, 'adaptive', readAdaptive),
    security: opt(f, 'security', readSecurity),
    where: root.where(),
  });
}

function readSettings(f: Map<string, Cursor>): RawHostSettings {
  return dropUndefined({
    connect_options: readConnectOptions(f.get('connect_options')),
    remote_python: opt(f, 'remote_python', (c) => c.string()),
    env: opt(f, 'env', readEnv) ?? {},
    setup: opt(f, 'setup', stringList),
    worker_options: readWorkerOptions(f.get('worker_options')),
  });
}

function clusterName(c: Cursor): string {
  const name = c.text();
  if (!CLUSTER_NAME.re.test(name)) c.fail(CLUSTER_NAME.expected);
  return name;
}

/** Keys are checked because they are exported by a remote shell. */
function readEnv(c: Cursor): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, v] of c.entries('any', { keyPattern: ENV_NAME })) out[key] = v.present ? v.text() : '';
  return out;
}

function readHosts(c: Cursor): RawHostEntry[] {
  const items = c.items('expected a list of hosts');
  if (items.length === 0) c.fail('no hosts: expected at least one host', NO_HOSTS_HINT);
  return items.flatMap((item) => recover(item, () => [readHostEntry(item)]) ?? []);
}

function readHostEntry(c: Cursor): RawHostEntry {
  if (!c.isMap()) return { ...hostNames(c), ...readSettings(new Map()), where: c.where() };
  const f = c.entries(HOST_KEYS, { sections: SECTIONS });
  const host = f.get('host');
  if (!host?.present) return c.fail('missing "host": expected {host: NAME, ...}');
  const maxWorkers = f.get('max_workers');
  const workerOptions = f.get('worker_options');
  return dropUndefined({
    ...hostNames(host),
    ...readSettings(f),
    max_workers: opt(f, 'max_workers', (v) => v.int(1)),
    where: c.where(),
    maxWorkersWhere: maxWorkers?.present ? maxWorkers.where() : undefined,
    workerOptionsWhere: workerOptions?.present ? workerOptions.where() : undefined,
  });
}

function hostNames(c: Cursor): Pick<RawHostEntry, 'names' | 'user' | 'port'> {
  const address = c.parse(() =>
    parseHostAddress(c.text('expected a host name, "user@host:port" or a range like node[01-04]')),
  );
  // An IPv6 literal has ":"; it is never a range.
  const names = address.host.includes(':') ? [address.host] : c.parse(() => expandHostPattern(address.host));
  return dropUndefined({ names, user: address.user, port: address.port });
}

function readAdaptive(c: Cursor): RawAdaptive {
  const f = section(c, ADAPTIVE_KEYS);
  const out: RawAdaptive = dropUndefined({
    minimum: opt(f, 'minimum', (v) => v.int(0)),
    maximum: opt(f, 'maximum', maximum),
    interval_ms: opt(f, 'interval', adaptiveInterval),
    wait_count: opt(f, 'wait_count', (v) => v.int(1)),
    target_duration_ms: opt(f, 'target_duration', durationMs),
    minimum_cores: opt(f, 'minimum_cores', (v) => v.int(0)),
    maximum_cores: opt(f, 'maximum_cores', (v) => v.int(0)),
    maximumCoresWhere: f.get('maximum_cores')?.present ? f.get('maximum_cores')!.where() : undefined,
    minimum_memory: opt(f, 'minimum_memory', bytes),
    maximum_memory: opt(f, 'maximum_memory', bytes),
    maximumMemoryWhere: f.get('maximum_memory')?.present ? f.get('maximum_memory')!.where() : undefined,
    groups: opt(f, 'groups', readAdaptiveGroups),
  });
  if (out.minimum !== undefined) out.minimumWhere = f.get('minimum')?.where();
  for (const [lo, hi] of [
    ['minimum', 'maximum'],
    ['minimum_cores', 'maximum_cores'],
    ['minimum_memory', 'maximum_memory'],
  ] as const) {
    const [a, b] = [out[lo], out[hi]];
    if (a !== undefined && b !== undefined && a > b) f.get(hi)?.fail(`expected a value >= ${lo} (${a})`);
  }
  return out;
}

function adaptiveInterval(c: Cursor): number {
  const ms = durationMs(c);
  if (ms < MIN_ADAPTIVE_INTERVAL_MS)
    c.fail(
      `expected at least ${MIN_ADAPTIVE_INTERVAL_MS}ms (Dask's default is 1s): a shorter interval makes the adaptive loop spin`,
    );
  return ms;
}

/** Dask's Adaptive default is math.inf; YAML spells it .inf, people write "inf". */
function maximum(c: Cursor): number {
  const v = c.scalar('expected a whole number >= 0 or .inf');
  if (v === Infinity || v === 'inf') return Infinity;
  return c.int(0);
}
