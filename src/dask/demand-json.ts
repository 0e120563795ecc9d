// The answer of GET /api/v1/sshcluster/demand (remote/scheduler_demand.py), checked
// field by field and bounded: the scheduler is another program and its answer is
// untrusted input like any remote output.
import { SchedulerResponseError, type RequestInfo } from './scheduler-errors.js';
import { numberRecord } from './scheduler-json.js';

export const DEMAND_ROUTE = '/api/v1/sshcluster/demand';
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
}

export interface SchedulerDemand {
  distributed: string;
  groups: DemandGroup[];
  workers: DemandWorker[];
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const count = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.floor(v) : 0);
const seconds = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0);

export function parseDemand(req: RequestInfo, body: unknown): SchedulerDemand {
  if (!isObj(body) || !Array.isArray(body['groups']) || !Array.isArray(body['workers'])) {
    throw new SchedulerResponseError(req, 'expected {"version", "groups": [...], "workers": [...]}');
  }
  const version = body['version'];
  if (version !== DEMAND_VERSION) {
    // Another sshcluster's preload: guessing at its fields could place workers wrongly.
    throw new SchedulerResponseError(req, `demand version ${String(version)}, this sshcluster reads ${DEMAND_VERSION}`);
  }
  return {
    distributed: typeof body['distributed'] === 'string' ? body['distributed'].slice(0, 64) : '',
    groups: body['groups'].slice(0, MAX_GROUPS).flatMap(parseGroup),
    workers: body['workers'].slice(0, MAX_WORKERS).flatMap(parseWorker),
  };
}

function parseGroup(g: unknown): DemandGroup[] {
  if (!isObj(g)) return [];
  const resources = numberRecord(g['resources']);
  if (Object.keys(resources).length === 0) return [];
  return [{
    resources,
    unrunnable: count(g['unrunnable']),
    waiting: count(g['waiting']),
    running: count(g['running']),
    durationS: seconds(g['duration']),
    unknown: count(g['unknown']),
  }];
}

function parseWorker(w: unknown): DemandWorker[] {
  if (!isObj(w) || typeof w['address'] !== 'string') return [];
  const name = w['name'];
  return [{
    name: typeof name === 'string' || typeof name === 'number' ? String(name) : w['address'],
    address: w['address'],
    nthreads: count(w['nthreads']),
    resources: numberRecord(w['resources']),
    used: numberRecord(w['used']),
  }];
}
