// Builds the `status --json` document (control/status-document.ts) from a running session.
import type { HostStatusState, StatusJson, WorkerState } from '../../control/status-document.js';
import type { HostState as HostHealthState } from '../../cluster/tick/host-health.js';
import type { ClusterSession } from './cluster-session.js';
import { certificatesStatus } from '../../tls/cert-expiry.js';
import { adaptiveStatus } from './adaptive-status.js';

export function statusOf(s: ClusterSession, clusterId: string, controllerPid: number): StatusJson {
  const now = s.now();
  const c = s.state;
  const desiredHost = new Map(c.desiredWorkers.map((w) => [w.name, w.host]));
  const names = [
    ...new Set([
      ...desiredHost.keys(),
      ...c
        .all()
        .filter((t) => t.desired.role === 'worker')
        .map((t) => t.desired.name),
    ]),
  ];
  const workers = names.map((name) => {
    const t = c.processes.get(name);
    const host = t?.desired.host ?? desiredHost.get(name) ?? '';
    const sup = c.supervisor.status(name);
    const opts = (c.workerHostSpec(host) ?? c.hostSpec(host))?.workerOptions;
    const alive = t !== undefined && t.exit === undefined;
    const state: WorkerState = alive
      ? t.stopping
        ? 'retiring'
        : c.held.has(name)
          ? 'held'
          : c.registered.has(name)
            ? 'running'
            : 'starting'
      : sup.state === 'crash-looping'
        ? 'crashed'
        : sup.state === 'restarting'
          ? 'restarting'
          : 'stopped';
    return {
      name,
      host,
      pid: alive ? (t.pid ?? null) : null,
      state,
      restarts: sup.restarts,
      ...(s.events.nannyRestarts.has(name) ? { nannyRestarts: s.events.nannyRestarts.get(name) } : {}),
      address: c.registered.get(name) ?? null,
      ...(c.held.get(name)?.results !== undefined ? { heldResults: c.held.get(name)!.results } : {}),
      nthreads: opts?.nthreads ?? 0,
    };
  });
  // A host removed by apply is listed while its processes retire.
  const alive = c.alive();
  const hostNames = [
    ...new Set([
      s.spec.schedulerHost.name,
      ...s.spec.workerHosts.map((h) => h.name),
      ...alive.map((t) => t.desired.host),
    ]),
  ];
  const workerHosts = new Set(s.spec.workerHosts.map((h) => h.name));
  const retiringOn = new Set(alive.filter((t) => t.desired.role === 'worker').map((t) => t.desired.host));
  const shownOn = new Map<string, number>();
  for (const w of workers) if (w.state !== 'stopped') shownOn.set(w.host, (shownOn.get(w.host) ?? 0) + 1);
  const hosts = hostNames.map((name) => {
    const h = c.health.state(name);
    const out = c.drained.has(name) || !c.hostSpec(name);
    // Its workers still retiring (the scheduler, when it runs there, stays).
    const busy = retiringOn.has(name);
    const state: HostStatusState = out ? (busy ? 'draining' : 'drained') : !h ? 'connecting' : h.kind;
    // A host connected whose workers failed at start-up (a wrong remote_python) is still
    // up, and says why its workers do not run.
    const failed = c.failedHosts.get(name) ?? null;
    const lastError = hostError(h, failed);
    const roles: ('scheduler' | 'worker')[] = [];
    if (name === s.spec.schedulerHost.name) roles.push('scheduler');
    if (workerHosts.has(name)) roles.push('worker');
    return { name, roles, state, lastError, workers: shownOn.get(name) ?? 0 };
  });
  return {
    name: s.spec.name,
    clusterId,
    schedulerAddress: s.address,
    dashboardUrl: s.dashboard,
    startedAt: new Date(s.startedAt).toISOString(),
    uptimeS: Math.round((now - s.startedAt) / 1000),
    controllerPid,
    desiredWorkers: c.desiredWorkers.length,
    hosts,
    workers,
    adaptive: s.adaptive ? adaptiveStatus(s.adaptive) : null,
    events: s.events.recent(),
    certificates: s.o.tls?.notAfter ? certificatesStatus(s.o.tls.notAfter, now) : null,
  };
}

export type { StatusJson } from '../../control/status-document.js';

/**
 * What status shows as a host's error: why it is unreachable or degraded; connecting
 * again, the error it had (a reconnect); up, only its workers' start-up failure (what it
 * had before is in the events: "unreachable: …", "reconnected").
 */
function hostError(h: HostHealthState | undefined, failed: string | null): string | null {
  switch (h?.kind) {
    case 'unreachable':
      return h.error;
    case 'degraded':
      return h.reason;
    case 'connecting':
      return h.lastError ?? failed;
    default:
      return failed;
  }
}
