// Shapes of the scheduler's JSON answers, checked field by field: the scheduler is a
// different program, possibly a different Dask version, so nothing is trusted blindly.
import { SchedulerResponseError, type RequestInfo } from './scheduler-errors.js';

export interface WorkerRef {
  /** The --name it was started with (stringified; Dask allows ints). */
  name: string;
  address: string;
}

export interface WorkerMetrics {
  /** Percent of one core. */
  cpu?: number;
  /** Process RSS in bytes. */
  memory?: number;
  executing?: number;
  /** Everything the scheduler reported, unparsed. */
  raw: Record<string, unknown>;
}

export interface WorkerIdentity extends WorkerRef {
  host?: string;
  nthreads: number;
  /** Bytes; 0 means no limit. */
  memoryLimit: number;
  resources: Record<string, number>;
  status?: string;
  nanny?: string;
  metrics?: WorkerMetrics;
}

export interface SchedulerIdentity {
  id?: string;
  address: string;
  /** Service name → port, e.g. {dashboard: 8787}. */
  services: Record<string, number>;
  workers: WorkerIdentity[];
}

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

function nameOf(v: unknown, fallback: string): string {
  return typeof v === 'string' || typeof v === 'number' ? String(v) : fallback;
}

/** The numeric entries of an object (resources, services); anything else is dropped. */
export function numberRecord(v: unknown): Record<string, number> {
  const out: Record<string, number> = {};
  if (!isObj(v)) return out;
  for (const [k, x] of Object.entries(v)) {
    const n = num(x);
    if (n !== undefined) out[k] = n;
  }
  return out;
}

export function parseWorkerList(req: RequestInfo, body: unknown): WorkerRef[] {
  if (!isObj(body) || !Array.isArray(body['workers'])) {
    throw new SchedulerResponseError(req, 'expected {"workers": [...]}');
  }
  return body['workers'].flatMap((w: unknown) => {
    const address = isObj(w) ? str(w['address']) : undefined;
    return isObj(w) && address ? [{ name: nameOf(w['name'], address), address }] : [];
  });
}

function parseMetrics(v: unknown): WorkerMetrics | undefined {
  if (!isObj(v)) return undefined;
  const counts = isObj(v['task_counts']) ? v['task_counts'] : {};
  const metrics: WorkerMetrics = { raw: v };
  const cpu = num(v['cpu']);
  const memory = num(v['memory']);
  const executing = num(v['executing']) ?? num(counts['executing']);
  if (cpu !== undefined) metrics.cpu = cpu;
  if (memory !== undefined) metrics.memory = memory;
  if (executing !== undefined) metrics.executing = executing;
  return metrics;
}

function parseWorker(address: string, w: Obj): WorkerIdentity {
  const worker: WorkerIdentity = {
    address,
    name: nameOf(w['name'], address),
    nthreads: num(w['nthreads']) ?? 0,
    memoryLimit: num(w['memory_limit']) ?? 0,
    resources: numberRecord(w['resources']),
  };
  const host = str(w['host']);
  const status = str(w['status']);
  const nanny = str(w['nanny']);
  const metrics = parseMetrics(w['metrics']);
  if (host !== undefined) worker.host = host;
  if (status !== undefined) worker.status = status;
  if (nanny !== undefined) worker.nanny = nanny;
  if (metrics !== undefined) worker.metrics = metrics;
  return worker;
}

export function parseIdentity(req: RequestInfo, body: unknown): SchedulerIdentity {
  if (!isObj(body) || !isObj(body['workers'])) {
    throw new SchedulerResponseError(req, 'expected {"workers": {...}}');
  }
  const workers = Object.entries(body['workers']).flatMap(([address, w]) =>
    isObj(w) ? [parseWorker(address, w)] : [],
  );
  const identity: SchedulerIdentity = {
    address: str(body['address']) ?? '',
    services: numberRecord(body['services']),
    workers,
  };
  const id = str(body['id']);
  if (id !== undefined) identity.id = id;
  return identity;
}
