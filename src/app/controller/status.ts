// Builds the `status --json` document (control/status-document.ts) from a running session.
import type { HostStatusState, StatusJson, WorkerState } from '../../control/status-document.js';
import type { HostState as HostHealthState } from '../../cluster/host-health.js';
import type { ClusterSession } from './cluster-session.js';
import { certificatesStatus } from '../../tls/cert-expiry.js';

export function statusOf(s: ClusterSession, clusterId: string, controllerPid: number): StatusJson {
  const now = s.now();
  const c = s.state;
  const names = [...new Set([...c.desiredWorkers.map((w) => w.name), ...c.all().filter((t) => t.desired.role === 'worker').map((t) => t.desired.name)])];
  const workers = names.map((name) => {
    const t = c.processes.get(name);
    const host = t?.desired.host ?? c.desiredWorkers.find((w) => w.name === name)?.host ?? '';
    const sup = c.supervisor.status(name);
    const opts = (c.workerHostSpec(host) ?? c.hostSpec(host))?.workerOptions;
    const alive = t !== undefined && t.exit === undefined;
    const state: WorkerState = alive
      ? t.stopping
        ? 'retiring'
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
      nthreads: opts?.nthreads ?? 0,
      memoryLimit: opts?.memoryLimit ?? '',
    };
  });
  // A host removed by apply is listed while its processes retire.
  const hostNames = [...new Set([s.spec.schedulerHost.name, ...s.spec.workerHosts.map((h) => h.name), ...c.alive().map((t) => t.desired.host)])];
  const hosts = hostNames.map((name) => {
    const h = c.health.state(name);
    const out = c.drained.has(name) || !c.hostSpec(name);
    // Its workers still retiring (the scheduler, when it runs there, stays).
    const busy = c.alive().some((t) => t.desired.host === name && t.desired.role === 'worker');
    const state: HostStatusState = out ? (busy ? 'draining' : 'drained') : !h ? 'connecting' : h.kind;
    // A host connected whose workers failed at start-up (a wrong remote_python) is still
    // up, and says why its workers do not run.
    const failed = c.failedHosts.get(name) ?? null;
    const lastError = hostError(h, failed);
    const roles: ('scheduler' | 'worker')[] = [];
    if (name === s.spec.schedulerHost.name) roles.push('scheduler');
    if (s.spec.workerHosts.some((w) => w.name === name)) roles.push('worker');
    return { name, roles, state, lastError, workers: workers.filter((w) => w.host === name && w.state !== 'stopped').length };
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
    adaptive: s.adaptive?.status() ?? null,
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
