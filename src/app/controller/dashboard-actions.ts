// The dashboard's two ways to act on a cluster: in-process for a foreground `up`
// (this process is the controller) and over the control socket for `attach`.
import type { DashboardActions } from '../../ui/actions.js';
import type { ClusterSession } from './cluster-session.js';
import type { ControlApiClient } from './control-api.js';
import { adapt } from './adapt-session.js';
import { statusWithMetrics } from './status-metrics.js';

export function sessionActions(
  session: ClusterSession,
  o: { clusterId: string; pid: number; teardown(): Promise<unknown>; interrupt(): void },
): DashboardActions {
  return {
    mode: 'controller',
    status: () => statusWithMetrics(session, o.clusterId, o.pid),
    scale: (n) => session.userScale(n),
    setAdaptive: async (on) => void (await adapt(session, on ? { dryRun: false, spec: {} } : { off: true })),
    restartWorker: async (name) => void (await session.restartWorker(name)),
    teardown: async () => void (await o.teardown()),
    detach: () => undefined,
    interrupt: o.interrupt,
  };
}

export function controlActions(client: ControlApiClient, detach: () => void): DashboardActions {
  return {
    mode: 'attached',
    status: () => client.call('status'),
    scale: (n) => client.call('scale', { n }, { timeoutMs: 0 }),
    setAdaptive: async (on) =>
      void (await client.call('adapt', on ? { dryRun: false, spec: {} } : { off: true }, { timeoutMs: 60_000 })),
    restartWorker: async (name) => void (await client.call('restart', { name }, { timeoutMs: 0 })),
    teardown: async () => void (await client.call('down', undefined, { timeoutMs: 0 })),
    detach,
    interrupt: detach,
  };
}
