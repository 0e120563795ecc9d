// The status document plus the scheduler's figures: each worker's cpu, memory, tasks
// processing and in memory, idle time, and the cluster's tasks by state, progress,
// clients and scheduler load. From sshcluster's preload (the route adaptive reads too),
// else each worker's cpu, memory and executing from /json/identity.json (identityOrWorkers:
// a scheduler that failed it once is not asked again). Optional and
// additive; a slow or failing scheduler leaves them out rather than delaying status.
import type { ClusterSession } from './cluster-session.js';
import type { SchedulerDemand } from '../../dask/demand-json.js';
import type { SchedulerIdentity } from '../../dask/scheduler-json.js';
import type { TaskFigures, WorkerStatus } from '../../control/status-document.js';
import { statusOf, type StatusJson } from './status.js';
import { KilledWorkerNotices } from './killed-worker-notices.js';

const SCHEDULER_WAIT_MS = 1_500;

export async function statusWithMetrics(s: ClusterSession, clusterId: string, pid: number): Promise<StatusJson> {
  const st = statusOf(s, clusterId, pid);
  const client = s.client;
  if (!client) return st;
  const figures = await inTime(async () => (await client.demand()) ?? (await client.identityOrWorkers()));
  if (!figures) return st;
  const add = 'groups' in figures ? fromDemand(figures) : fromIdentity(figures);
  for (const message of killedNotices(s).take(add.tasks)) s.bus.emit({ kind: 'notice', level: 'warning', message });
  return {
    ...st,
    workers: st.workers.map((w) => (w.state === 'stopped' ? w : { ...w, ...add.worker(w.name) })),
    ...(add.tasks ? { tasks: add.tasks } : {}),
  };
}

const killed = new WeakMap<ClusterSession, KilledWorkerNotices>();
function killedNotices(s: ClusterSession): KilledWorkerNotices {
  let k = killed.get(s);
  if (!k) killed.set(s, (k = new KilledWorkerNotices()));
  return k;
}

interface Additions {
  worker(name: string): Partial<WorkerStatus>;
  tasks?: TaskFigures;
}

function fromDemand(d: SchedulerDemand): Additions {
  const byName = new Map(d.workers.map((w) => [w.name, w.figures]));
  const f = d.figures;
  return {
    worker: (name) => {
      const w = byName.get(name);
      if (!w) return {};
      return {
        cpu: w.cpu,
        memoryBytes: w.memoryBytes,
        ...(w.memoryLimitBytes > 0 ? { memoryLimitBytes: w.memoryLimitBytes } : {}),
        processing: w.processing,
        inMemory: w.inMemory,
        ...(w.idleS !== undefined ? { idleS: w.idleS } : {}),
      };
    },
    ...(f
      ? {
          tasks: {
            byState: f.tasks,
            progress: f.progress,
            clients: f.clients,
            schedulerCpu: f.scheduler.cpu,
            schedulerMemoryBytes: f.scheduler.memoryBytes,
          },
        }
      : {}),
  };
}

function fromIdentity(identity: SchedulerIdentity): Additions {
  const byName = new Map(identity.workers.map((w) => [w.name, w]));
  return {
    worker: (name) => {
      const i = byName.get(name);
      if (!i) return {};
      const m = i.metrics;
      return {
        ...(m?.cpu !== undefined ? { cpu: m.cpu } : {}),
        ...(m?.memory !== undefined ? { memoryBytes: m.memory } : {}),
        ...(i.memoryLimit > 0 ? { memoryLimitBytes: i.memoryLimit } : {}),
        ...(m?.executing !== undefined ? { executing: m.executing } : {}),
      };
    },
  };
}

/** f's answer, or undefined when it fails or takes longer than SCHEDULER_WAIT_MS. */
async function inTime<T>(f: () => Promise<T>): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), SCHEDULER_WAIT_MS)));
  try {
    return await Promise.race([f().catch(() => undefined), late]);
  } finally {
    clearTimeout(timer);
  }
}
