// The status document plus each worker's live metrics from the scheduler
// (/json/identity.json): cpu, memoryBytes, memoryLimitBytes, executing. Optional and
// additive; a slow or failing scheduler leaves them out rather than delaying status.
import type { ClusterSession } from './cluster-session.js';
import { statusOf, type StatusJson } from './status.js';

const IDENTITY_WAIT_MS = 1_500;

export async function statusWithMetrics(s: ClusterSession, clusterId: string, pid: number): Promise<StatusJson> {
  const st = statusOf(s, clusterId, pid);
  if (!s.client) return st;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), IDENTITY_WAIT_MS)));
  const identity = await Promise.race([s.client.identity().catch(() => undefined), late]);
  clearTimeout(timer);
  if (!identity) return st;
  const byName = new Map(identity.workers.map((w) => [w.name, w]));
  return {
    ...st,
    workers: st.workers.map((w) => {
      const i = w.state === 'stopped' ? undefined : byName.get(w.name);
      if (!i) return w;
      const m = i.metrics;
      return {
        ...w,
        ...(m?.cpu !== undefined ? { cpu: m.cpu } : {}),
        ...(m?.memory !== undefined ? { memoryBytes: m.memory } : {}),
        ...(i.memoryLimit > 0 ? { memoryLimitBytes: i.memoryLimit } : {}),
        ...(m?.executing !== undefined ? { executing: m.executing } : {}),
      };
    }),
  };
}
