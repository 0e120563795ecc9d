// Composition root of `sshcluster check`: connect to every host as `up` would (same
// connection layer, bounded fan-out with jitter), probe each, test the scheduler's
// ports with a short-lived listener that the workers then try to reach.
import fs from 'node:fs';
import type { ClusterSpec, ConnectSpec, HostSpec } from '../../config/spec.js';
import { HostConnection } from '../../ssh/host-connection.js';
import { knownKeyTypes } from '../../ssh/known-hosts.js';
import { SshError } from '../../ssh/ssh-error.js';
import { parseDashboardAddress } from '../../config/addresses.js';
import {
  evaluateCheck,
  type HostKeyStatus,
  type HostObservation,
  type PortsObservation,
  type ReachObservation,
  type Role,
} from '../check/check-evaluate.js';
import { checkJson, renderCheck } from '../check/check-format.js';
import { probeHost, startListener, type Listener } from '../check/check-host.js';
import { listenerLifetimeS } from '../check/check-probe.js';
import { safeText } from '../../events/terminal-text.js';
import type { AppContext } from '../context.js';
import { connectLimiter } from '../transport/fan-out.js';
import { clusterHosts, workerHostOf } from '../../config/spec.js';
import type { ShellPort } from '../../ssh/shell-port.js';
import { loadSpec } from './cluster-spec.js';
import { clustersOn } from './find-cluster.js';
import { shellOpener } from './shell-opener.js';
import { certificatesText, clusterCertificates } from '../check/check-certs.js';
import { quoteWord } from '../../dask/remote-shell.js';

export interface CheckOptions {
  file: string;
  fanout: number;
  json: boolean;
  timeoutMs: number;
}

type Target = { address?: string; why?: string };

export async function runCheck(ctx: AppContext, o: CheckOptions): Promise<number> {
  const spec = loadSpec(ctx, o.file);
  const open = shellOpener(ctx, spec);
  const limit = connectLimiter({ fanout: o.fanout });
  const sched = spec.schedulerHost;
  let listener: Listener | undefined;
  let setTarget: (t: Target) => void = () => {};
  const target = new Promise<Target>((r) => (setTarget = r));

  const checkHost = async (h: HostSpec): Promise<HostObservation> => {
    const role = roleOf(spec, h);
    const base = {
      host: h.name,
      role,
      remotePython: h.remotePython,
      tls: spec.security?.kind === 'tls',
      ...(role === 'scheduler' ? {} : { resources: workerHostOf(spec, h.name)?.workerOptions.resources }),
    };
    const hostKey = hostKeyBefore(h.connect);
    let shell: ShellPort;
    try {
      shell = await limit(() => open(h));
    } catch (err) {
      if (role !== 'worker') setTarget({ why: 'scheduler host not reachable' });
      return { ...base, connect: failure(h, err) };
    }
    try {
      const authMethod = shell instanceof HostConnection ? shell.authMethod : 'local';
      const obs: HostObservation = { ...base, connect: { ok: true, authMethod, hostKey } };
      if (role !== 'worker') {
        listener = await startListener(h, shell, listenSpec(spec, o), o.timeoutMs).catch((err: unknown) =>
          failedListener(err),
        );
        obs.ports = listener.ports;
        setTarget(
          listener.listening
            ? { address: `${schedulerHostname(spec)} ${spec.schedulerOptions.port}` }
            : { why: whyUntested(listener) },
        );
      }
      const reachTarget = role === 'worker' ? target.then((t) => t.address) : Promise.resolve(undefined);
      const r = await probeHost(h, shell, reachTarget, o.timeoutMs).catch(
        (err: unknown) => ({ error: errorText(err) }) as const,
      );
      if ('probe' in r && r.probe) obs.probe = r.probe;
      if (r.error !== undefined) obs.probeError = r.error;
      if ('clockOffsetS' in r && r.clockOffsetS !== undefined) obs.clockOffsetS = r.clockOffsetS;
      if (role === 'worker') obs.reach = reachOf(await target, obs.probe?.reach, spec);
      return obs;
    } finally {
      if (role !== 'worker') {
        await workersDone;
        await listener?.stop();
      }
      shell.close();
    }
  };

  // The scheduler host's listener lives until every worker has tried to reach it.
  let workersProbed: () => void = () => {};
  const workersDone = new Promise<void>((r) => (workersProbed = r));
  const hosts = clusterHosts(spec);
  const pending = hosts.map((h) => checkHost(h));
  void Promise.all(pending.filter((_, i) => hosts[i]!.name !== sched.name)).then(() => workersProbed());
  const observations = await Promise.all(pending);
  for (const obs of observations)
    if (obs.ports?.kind === 'tested') obs.ports.heldBy = await portHolders(ctx, sched, obs.ports, spec.name);

  const report = evaluateCheck(observations, quoteWord(o.file), openFileLimit());
  // The cluster this file runs: when its certificates end (they cannot be renewed in place).
  const certs = await clusterCertificates(ctx, spec.name, Date.now());
  ctx.stdout.write(o.json ? checkJson(report, certs) : safeText(renderCheck(report) + certificatesText(certs)));
  return report.launchable ? 0 : 1;
}

/**
 * Which of this machine's clusters (their state files) run a scheduler or serve its
 * dashboard at the taken ports of this host: the port's likely holder, named in the fix.
 * Nothing when no port is taken or the state cannot be read (the generic fix stands).
 */
async function portHolders(
  ctx: AppContext,
  sched: HostSpec,
  ports: Extract<PortsObservation, { kind: 'tested' }>,
  own: string,
): Promise<{ scheduler?: string; dashboard?: string; own?: boolean } | undefined> {
  if (ports.scheduler === undefined && ports.dashboard === undefined) return undefined;
  const here = await clustersOn(ctx, sched.connect.hostname);
  const scheduler =
    ports.scheduler === undefined ? undefined : here.find((s) => s.spec.schedulerOptions.port === ports.port)?.name;
  const dashboard =
    ports.dashboard === undefined
      ? undefined
      : here.find((s) => parseDashboardAddress(s.spec.schedulerOptions.dashboardAddress).port === ports.dashboardPort)
          ?.name;
  if (scheduler === undefined && dashboard === undefined) return undefined;
  return {
    ...(scheduler ? { scheduler } : {}),
    ...(dashboard ? { dashboard } : {}),
    ...((scheduler ?? dashboard) === own ? { own: true } : {}),
  };
}

/** This process's limit on open files (Linux), or undefined where it cannot be read. */
function openFileLimit(): number | undefined {
  try {
    const line = fs
      .readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const soft = Number(line?.split(/\s{2,}/)[1]);
    return Number.isInteger(soft) && soft > 0 ? soft : undefined;
  } catch {
    return undefined;
  }
}

function roleOf(spec: ClusterSpec, h: HostSpec): Role {
  if (h.name !== spec.schedulerHost.name) return 'worker';
  return spec.workerHosts.some((w) => w.name === h.name) ? 'scheduler+worker' : 'scheduler';
}

function schedulerHostname(spec: ClusterSpec): string {
  return spec.schedulerOptions.host ?? spec.schedulerHost.connect.hostname;
}

function listenSpec(spec: ClusterSpec, o: CheckOptions) {
  const dash = parseDashboardAddress(spec.schedulerOptions.dashboardAddress);
  const any = (host: string | undefined): string => (!host || host === '0.0.0.0' || host === '*' ? '' : host);
  return {
    host: any(spec.schedulerOptions.host),
    port: spec.schedulerOptions.port,
    dashboardHost: any(dash.host),
    dashboardPort: dash.port,
    lifetimeS: listenerLifetimeS({
      hosts: clusterHosts(spec).length,
      fanout: o.fanout,
      timeoutMs: o.timeoutMs,
      connectTimeoutMs: Math.max(...clusterHosts(spec).map((h) => h.connect.connectTimeoutMs)),
    }),
  };
}

function whyUntested(l: Listener): string {
  return l.ports.kind === 'untested' ? 'no port test' : 'port taken';
}

function failedListener(err: unknown): Listener {
  return { ports: { kind: 'untested', why: errorText(err) }, listening: false, stop: async () => {} };
}

function reachOf(t: Target, probe: { ok: boolean; error?: string } | undefined, spec: ClusterSpec): ReachObservation {
  const where = `${schedulerHostname(spec)}:${spec.schedulerOptions.port}`;
  if (t.address === undefined) return { kind: 'untested', why: t.why ?? 'no listener' };
  if (!probe) return { kind: 'untested', why: 'needs a working remote_python' };
  return probe.ok ? { kind: 'ok', target: where } : { kind: 'failed', target: where, error: probe.error ?? 'failed' };
}

/** What known_hosts says before connecting; a connection that then succeeds confirms it. */
function hostKeyBefore(c: ConnectSpec): HostKeyStatus {
  if (c.strictHostKeyChecking === 'no') return 'not checked';
  let text = '';
  try {
    text = fs.readFileSync(c.knownHosts, 'utf8');
  } catch {
    // missing: every key is new
  }
  return knownKeyTypes(text, c.hostname, c.port).length > 0 ? 'known' : 'added';
}

function failure(h: HostSpec, err: unknown): HostObservation['connect'] {
  const text = errorText(err);
  const message = text.startsWith(`${h.name}: `) ? text.slice(h.name.length + 2) : text;
  if (err instanceof SshError)
    return { ok: false, reason: err.reason, message, ...(err.hint ? { hint: err.hint } : {}) };
  const hint = err instanceof Error && 'hint' in err && typeof err.hint === 'string' ? err.hint : undefined;
  return { ok: false, reason: 'error', message, ...(hint ? { hint } : {}) };
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
