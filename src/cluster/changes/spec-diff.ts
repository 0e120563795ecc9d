// What changing a running cluster's host file means, as `plan` prints it and `apply`
// carries it out: hosts added and removed, worker counts per host, hosts whose workers
// must restart because their launch changed, and changes only a new cluster can take.
// Pure: the old spec (the state file's), the new one (the file's) and the workers now
// wanted, in; the diff out.
import type { ClusterSpec, ConnectSpec, HostSpec } from '../../config/spec.js';
import type { PlacedWorker } from '../placement/placement.js';

export interface HostCount {
  host: string;
  from: number;
  to: number;
}

export interface HostRestart {
  host: string;
  /** Its workers now wanted, restarted one batch at a time. */
  workers: string[];
  /** What changed, as host-file keys: "worker_options.nthreads 1 → 2", "env PATH". */
  why: string[];
}

export interface SpecDiff {
  /** Changes a running scheduler cannot take: apply refuses them. */
  recreate: string[];
  hostsAdded: string[];
  hostsRemoved: string[];
  /** Worker counts that change, per host (added hosts from 0, removed hosts to 0). */
  counts: HostCount[];
  restart: HostRestart[];
  /** Hosts whose launch changed with no worker there to restart: their next workers start with it. */
  updated: { host: string; why: string[] }[];
  /** max_workers that change on kept hosts: the room scale and adaptive place into (nothing restarts). */
  maxWorkers: HostCount[];
  /** The adaptive settings, when they change: apply gives them to the running loop. */
  adaptive?: { from?: ClusterSpec['adaptive']; to?: ClusterSpec['adaptive'] };
}

export function hasChanges(d: SpecDiff): boolean {
  return (
    d.recreate.length +
      d.hostsAdded.length +
      d.hostsRemoved.length +
      d.counts.length +
      d.restart.length +
      d.updated.length +
      d.maxWorkers.length >
      0 || d.adaptive !== undefined
  );
}

/**
 * `adaptive`: the cluster is scaled by the adaptive loop, so a host's nworkers is not a
 * count to reach (adaptive places into the new slots) and only removed hosts lose workers.
 * Otherwise a host keeps the count it has (a `scale` survives) unless its nworkers changed.
 */
export function diffSpecs(
  old: ClusterSpec,
  next: ClusterSpec,
  current: readonly PlacedWorker[],
  adaptive: boolean,
): SpecDiff {
  const recreate = recreateReasons(old, next);
  const oldHosts = new Map(old.workerHosts.map((h) => [h.name, h]));
  const newHosts = new Map(next.workerHosts.map((h) => [h.name, h]));
  const on = (host: string) => current.filter((w) => w.host === host);
  const counts: HostCount[] = [];
  const restart: HostRestart[] = [];
  const updated: SpecDiff['updated'] = [];
  for (const h of next.workerHosts) {
    const before = oldHosts.get(h.name);
    const have = on(h.name).length;
    const want = adaptive
      ? Math.min(have, h.maxWorkers)
      : before && before.workerOptions.nworkers === h.workerOptions.nworkers
        ? Math.min(have, h.maxWorkers)
        : h.workerOptions.nworkers;
    if (want !== have) counts.push({ host: h.name, from: have, to: want });
    const why = before ? launchChanges(before, h) : [];
    const kept = on(h.name)
      .slice(0, want)
      .map((w) => w.name);
    if (why.length && kept.length) restart.push({ host: h.name, workers: kept, why });
    else if (why.length) updated.push({ host: h.name, why });
  }
  for (const h of old.workerHosts)
    if (!newHosts.has(h.name) && on(h.name).length) counts.push({ host: h.name, from: on(h.name).length, to: 0 });
  const diff: SpecDiff = {
    recreate,
    hostsAdded: next.workerHosts.filter((h) => !oldHosts.has(h.name)).map((h) => h.name),
    hostsRemoved: old.workerHosts.filter((h) => !newHosts.has(h.name)).map((h) => h.name),
    counts,
    restart,
    updated,
    maxWorkers: next.workerHosts.flatMap((h) => {
      const before = oldHosts.get(h.name);
      return before && before.maxWorkers !== h.maxWorkers
        ? [{ host: h.name, from: before.maxWorkers, to: h.maxWorkers }]
        : [];
    }),
  };
  if (stable(old.adaptive) !== stable(next.adaptive)) diff.adaptive = { from: old.adaptive, to: next.adaptive };
  return diff;
}

/** The scheduler, its options and the cluster's security are fixed for a cluster's life. */
function recreateReasons(old: ClusterSpec, next: ClusterSpec): string[] {
  const out: string[] = [];
  if (old.local !== next.local) out.push('the cluster changes between local and SSH');
  if (old.schedulerHost.name !== next.schedulerHost.name)
    out.push(`the scheduler host changes: ${old.schedulerHost.name} → ${next.schedulerHost.name}`);
  else {
    if (stable(where(old.schedulerHost.connect)) !== stable(where(next.schedulerHost.connect)))
      out.push(`the scheduler host's connection changes (${old.schedulerHost.name})`);
    for (const w of launchChanges(old.schedulerHost, next.schedulerHost, false))
      out.push(`the scheduler's launch changes: ${w}`);
  }
  for (const k of Object.keys({
    ...old.schedulerOptions,
    ...next.schedulerOptions,
  }) as (keyof ClusterSpec['schedulerOptions'])[]) {
    if (old.schedulerOptions[k] !== next.schedulerOptions[k])
      out.push(`scheduler_options.${snake(k)} ${show(old.schedulerOptions[k])} → ${show(next.schedulerOptions[k])}`);
  }
  if (stable(old.security ?? { kind: 'none' }) !== stable(next.security ?? { kind: 'none' }))
    out.push('security changes (every process would need new TLS material)');
  return out;
}

/** What a worker's launch depends on, as the host file names it. Env values are not shown. */
function launchChanges(a: HostSpec, b: HostSpec, workers = true): string[] {
  const out: string[] = [];
  if (stable(where(a.connect)) !== stable(where(b.connect)))
    out.push('connection (hostname, port, user or proxy_jump)');
  if (a.remotePython !== b.remotePython) out.push(`remote_python ${a.remotePython} → ${b.remotePython}`);
  const envKeys = [...new Set([...Object.keys(a.env), ...Object.keys(b.env)])]
    .filter((k) => a.env[k] !== b.env[k])
    .sort();
  if (envKeys.length) out.push(`env ${envKeys.join(', ')}`);
  if (stable(a.setup) !== stable(b.setup)) out.push('setup');
  if (!workers) return out;
  const wa = a.workerOptions;
  const wb = b.workerOptions;
  for (const k of ['nthreads', 'memoryLimit', 'nanny', 'deathTimeoutS', 'interface'] as const) {
    if (wa[k] !== wb[k]) out.push(`worker_options.${snake(k)} ${show(wa[k])} → ${show(wb[k])}`);
  }
  if (stable(wa.resources) !== stable(wb.resources))
    out.push(`worker_options.resources ${show(wa.resources)} → ${show(wb.resources)}`);
  return out;
}

/** Where a host is, not how we log in (keys, agent socket, timeouts differ between shells). */
function where(c: ConnectSpec): unknown {
  return { hostname: c.hostname, port: c.port, username: c.username, via: c.proxyJump.map(where) };
}

function snake(k: string): string {
  return k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`).replace('death_timeout_s', 'death_timeout');
}

function show(v: unknown): string {
  if (v === undefined) return '(unset)';
  if (typeof v === 'object' && v !== null)
    return (
      Object.entries(v)
        .map(([k, x]) => `${k}=${String(x)}`)
        .join(',') || '{}'
    );
  return String(v);
}

/**
 * JSON with sorted keys: equal values, equal text. Keys in code-unit order: no locale
 * (localeCompare loads ICU's collation data: +2.6 MB of RSS in a Node process).
 */
function stable(v: unknown): string {
  const byKey = ([p]: [string, unknown], [q]: [string, unknown]) => (p < q ? -1 : p > q ? 1 : 0);
  return (
    JSON.stringify(v, (_k, x: unknown) =>
      x && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort(byKey)) : x,
    ) ?? 'undefined'
  );
}
