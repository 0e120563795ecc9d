// The answer of GET /api/v1/sshcluster/demand (remote/scheduler_demand.py), checked
// field by field and bounded: the scheduler is another program and its answer is
// untrusted input like any remote output.
import { SchedulerResponseError, type RequestInfo } from './scheduler-errors.js';
import { numberRecord, type WorkerIdentity } from './scheduler-json.js';

export const DEMAND_ROUTE = '/api/v1/sshcluster/demand';
/** The preload's other route: retire_workers with remove=False (SchedulerClient.retireWorkers). */
export const RETIRE_ROUTE = '/api/v1/sshcluster/retire';
/** The preload's `version` this parser understands; a newer one is refused, not guessed. */
export const DEMAND_VERSION = 1;
/** More distinct restriction sets than this is not a real workload; the rest are dropped. */
const MAX_GROUPS = 256;
const MAX_WORKERS = 100_000;

/** Pending work that needs one restriction set, e.g. {GPU: 1}. */
export interface DemandGroup {
  resources: Record<string, number>;
  /** No current worker declares enough of these resources. */
  unrunnable: number;
  /** Assigned to a worker, waiting there for its resources. */
  waiting: number;
  /** Assigned and within the worker's resources. */
  running: number;
  /** Expected seconds of the unrunnable + waiting tasks (the scheduler's estimates). */
  durationS: number;
  /** Tasks among those whose duration the scheduler had to guess. */
  unknown: number;
}

export interface DemandWorker {
  name: string;
  address: string;
  nthreads: number;
  resources: Record<string, number>;
  used: Record<string, number>;
  /** The worker's figures (absent from a preload that did not send them). */
  figures?: WorkerFigures;
}

export interface WorkerFigures {
  /** Tasks assigned to it (executing or ready there). */
  processing: number;
  /** Results it holds. */
  inMemory: number;
  /** Percent of one core. */
  cpu: number;
  memoryBytes: number;
  /** 0: no limit. */
  memoryLimitBytes: number;
  /** Seconds with nothing to process; absent while busy. */
  idleS?: number;
}

/** Tasks of a computation: an erred one is never counted done, even once forgotten. */
export interface Progress {
  done: number;
  total: number;
  erred: number;
  /** Workers that died running its tasks (absent from an older preload). */
  killedWorkers?: number;
  /** The same by task prefix, most erred first (absent from an older preload). */
  prefixes?: PrefixProgress[];
}

export interface PrefixProgress {
  prefix: string;
  done: number;
  erred: number;
  total: number;
  killedWorkers: number;
}

const MAX_PREFIXES = 50;

/** The whole cluster as the scheduler sees it. */
export interface ClusterFigures {
  /** Tasks held by state (Dask's names: processing, queued, no-worker, waiting, memory, erred, released). */
  tasks: Record<string, number>;
  /** The newest computation: done (and erred) of total; null before any. */
  progress: Progress | null;
  clients: number;
  scheduler: { cpu: number; memoryBytes: number };
}

export interface SchedulerDemand {
  /** The scheduler process's pid, then its ancestors' (absent from an older preload). */
  pids?: number[];
  distributed: string;
  groups: DemandGroup[];
  /** Tasks without restrictions waiting for any worker (0 from a preload that does not say). */
  plainPending: number;
  workers: DemandWorker[];
  figures?: ClusterFigures;
  /** The workers as identity.json describes them (SchedulerClient.demand fills it in). */
  registered?: WorkerIdentity[];
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const count = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.floor(v) : 0);
const positive = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0);

export function parseDemand(req: RequestInfo, body: unknown): SchedulerDemand {
  if (!isObj(body) || !Array.isArray(body['groups']) || !Array.isArray(body['workers'])) {
    throw new SchedulerResponseError(req, 'expected {"version", "groups": [...], "workers": [...]}');
  }
  const version = body['version'];
  if (version !== DEMAND_VERSION) {
    // Another sshcluster's preload: guessing at its fields could place workers wrongly.
    throw new SchedulerResponseError(req, `demand version ${String(version)}, this sshcluster reads ${DEMAND_VERSION}`);
  }
  const pids = Array.isArray(body['pids'])
    ? body['pids']
        .slice(0, 16)
        .map(count)
        .filter((p) => p > 0)
    : [];
  return {
    ...(pids.length ? { pids } : {}),
    distributed: typeof body['distributed'] === 'string' ? body['distributed'].slice(0, 64) : '',
    groups: body['groups'].slice(0, MAX_GROUPS).flatMap(parseGroup),
    plainPending: count(body['plain_pending']),
    workers: body['workers'].slice(0, MAX_WORKERS).flatMap(parseWorker),
    ...(isObj(body['figures']) ? { figures: parseFigures(body['figures']) } : {}),
  };
}

/** Dask's task states; anything else an answer names is dropped (it is untrusted). */
const TASK_STATES = ['released', 'waiting', 'no-worker', 'queued', 'processing', 'memory', 'erred'];

function parseFigures(f: Obj): ClusterFigures {
  const tasks: Record<string, number> = {};
  const states = isObj(f['tasks']) ? f['tasks'] : {};
  for (const s of TASK_STATES) if (count(states[s]) > 0) tasks[s] = count(states[s]);
  const p = f['progress'];
  const sched = isObj(f['scheduler']) ? f['scheduler'] : {};
  return {
    tasks,
    progress: isObj(p) ? parseProgress(p) : null,
    clients: count(f['clients']),
    scheduler: { cpu: positive(sched['cpu']), memoryBytes: count(sched['memory']) },
  };
}

function parseProgress(p: Obj): Progress {
  const out: Progress = { done: count(p['done']), total: count(p['total']), erred: count(p['erred']) };
  if (p['killed_workers'] !== undefined) out.killedWorkers = count(p['killed_workers']);
  if (Array.isArray(p['prefixes'])) out.prefixes = p['prefixes'].slice(0, MAX_PREFIXES).flatMap(parsePrefix);
  return out;
}

function parsePrefix(x: unknown): PrefixProgress[] {
  if (!isObj(x) || typeof x['prefix'] !== 'string') return [];
  return [
    {
      prefix: x['prefix'].slice(0, 80),
      done: count(x['done']),
      erred: count(x['erred']),
      total: count(x['total']),
      killedWorkers: count(x['killed_workers']),
    },
  ];
}

function parseWorkerFigures(w: Obj): WorkerFigures | undefined {
  if (typeof w['processing'] !== 'number') return undefined;
  const idle = w['idle_s'];
  return {
    processing: count(w['processing']),
    inMemory: count(w['in_memory']),
    cpu: positive(w['cpu']),
    memoryBytes: count(w['memory']),
    memoryLimitBytes: count(w['memory_limit']),
    ...(typeof idle === 'number' && Number.isFinite(idle) && idle >= 0 ? { idleS: idle } : {}),
  };
}

function parseGroup(g: unknown): DemandGroup[] {
  if (!isObj(g)) return [];
  const resources = numberRecord(g['resources']);
  if (Object.keys(resources).length === 0) return [];
  return [
    {
      resources,
      unrunnable: count(g['unrunnable']),
      waiting: count(g['waiting']),
      running: count(g['running']),
      durationS: positive(g['duration']),
      unknown: count(g['unknown']),
    },
  ];
}

function parseWorker(w: unknown): DemandWorker[] {
  if (!isObj(w) || typeof w['address'] !== 'string') return [];
  const name = w['name'];
  const figures = parseWorkerFigures(w);
  return [
    {
      name: typeof name === 'string' || typeof name === 'number' ? String(name) : w['address'],
      address: w['address'],
      nthreads: count(w['nthreads']),
      resources: numberRecord(w['resources']),
      used: numberRecord(w['used']),
      ...(figures ? { figures } : {}),
    },
  ];
}
