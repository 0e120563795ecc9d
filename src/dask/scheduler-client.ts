// HTTP/1.1 client for the scheduler's dashboard port, over any byte stream: the app
// passes an SSH forwardOut channel for remote clusters, tcpConnector() for local ones.
// One connection per request (Connection: close), so a broken tunnel never poisons
// a pool.
import { request } from 'node:http';
import { connect as netConnect } from 'node:net';
import type { Duplex } from 'node:stream';
import {
  SchedulerApiDisabledError,
  SchedulerConnectionError,
  SchedulerHttpError,
  SchedulerResponseError,
  SchedulerTimeoutError,
  type RequestInfo,
} from './scheduler-errors.js';
import { parseIdentity, parseWorkerList, type SchedulerIdentity, type WorkerRef } from './scheduler-json.js';
import { registeredFromDemand } from './preload-identity.js';
import { DEMAND_ROUTE, parseDemand, RETIRE_ROUTE, type SchedulerDemand } from './demand-json.js';
import { parseRetire } from './retire-json.js';
import type { RetireOutcome } from '../cluster/ports.js';

export type Connector = () => Promise<Duplex> | Duplex;

export interface SchedulerClientOptions {
  /** Per request, connect included. */
  timeoutMs: number;
  /**
   * For retire_workers, which answers only once the workers' data has moved: far longer
   * than a status request may take. Default 10 minutes.
   */
  retireTimeoutMs?: number;
}

interface Response {
  status: number;
  body: string;
}

export class SchedulerClient {
  /** identity.json answered HTTP 500 once: asked no more (identityOrWorkers). */
  private identityRefused = false;

  constructor(
    private readonly connect: Connector,
    private readonly opts: SchedulerClientOptions,
  ) {}

  /** true when /health answers "ok"; false on any failure (it is a probe). */
  async health(): Promise<boolean> {
    try {
      const res = await this.send({ method: 'GET', path: '/health' });
      return res.status === 200 && res.body.trim() === 'ok';
    } catch {
      return false;
    }
  }

  async workers(): Promise<WorkerRef[]> {
    const req = { method: 'GET', path: '/api/v1/get_workers' };
    return parseWorkerList(req, await this.json(req));
  }

  async identity(): Promise<SchedulerIdentity> {
    const req = { method: 'GET', path: '/json/identity.json' };
    return parseIdentity(req, await this.json(req));
  }

  /**
   * The workers with their size and load, asking the scheduler the least it can answer
   * without a traceback in its own log: the preload's demand route when there is one
   * (registeredFromDemand), else identity.json, else the plain worker list. distributed
   * 2024.x answers identity.json with HTTP 500 (and logs the traceback) while a worker's
   * last heartbeat carries fine-performance metrics, i.e. whenever tasks ran since: after
   * the first such answer this client never asks it again. From the worker list,
   * nthreads and memoryLimit are 0 (unknown) and metrics absent.
   */
  async identityOrWorkers(): Promise<SchedulerIdentity> {
    // A failing preload route is no reason to fail: identity.json may answer.
    const registered = (await this.demand().catch(() => undefined))?.registered;
    if (registered) return { address: '', services: {}, workers: registered };
    if (!this.identityRefused) {
      try {
        return await this.identity();
      } catch (err) {
        if (!(err instanceof SchedulerHttpError) || err.status !== 500) throw err;
        this.identityRefused = true;
      }
    }
    const workers = await this.workers();
    return {
      address: '',
      services: {},
      workers: workers.map((w) => ({ ...w, nthreads: 0, memoryLimit: 0, resources: {} })),
    };
  }

  /**
   * Retire (data moved off, then removed from the scheduler); resolves with the
   * addresses the scheduler retired and those it kept, their results having nowhere to
   * go (retire-json.ts). Dask quirk: the worker process is not closed by
   * this API, and a nanny restarts it, so stop the process afterwards.
   *
   * `keep`: for a stop that follows at once (every retire of the reconciler's and of
   * teardown), through sshcluster's preload (RETIRE_ROUTE): the scheduler keeps the
   * retired workers, closing gracefully, until their processes end. Removed at once, a
   * worker learns it from its next heartbeat and closes itself, and that close can meet
   * the SIGTERM of the stop; `dask worker --no-nanny` 2022.12 then hangs until it is
   * killed. Dask's own route when the scheduler has no such route (started without the
   * preload).
   */
  async retireWorkers(addresses: readonly string[], opts: { keep?: boolean } = {}): Promise<RetireOutcome> {
    if (opts.keep) {
      try {
        return await this.retire({ workers: addresses }, addresses, RETIRE_ROUTE);
      } catch (err) {
        if (!(err instanceof SchedulerApiDisabledError)) throw err;
      }
    }
    return this.retire({ workers: addresses }, addresses);
  }

  /** Let the scheduler pick n workers to retire (distributed ≥ 2022.5 understands {n}); the retired addresses. */
  async retireN(n: number): Promise<string[]> {
    if (n <= 0) return [];
    return (await this.retire({ n }, undefined)).retired;
  }

  /** The scheduler's recommended number of workers. */
  async adaptiveTarget(): Promise<number> {
    const req = { method: 'GET', path: '/api/v1/adaptive_target' };
    const body = await this.json(req);
    const rec = (body ?? {}) as Record<string, unknown>;
    const target = rec['workers'] ?? rec['desired_workers'];
    if (typeof target !== 'number' || !Number.isFinite(target)) {
      throw new SchedulerResponseError(req, 'no numeric "workers" or "desired_workers"');
    }
    return target;
  }

  /**
   * Pending work by resource restriction set, from sshcluster's scheduler preload;
   * undefined when the route is absent (a scheduler started without the preload).
   */
  async demand(): Promise<SchedulerDemand | undefined> {
    const req = { method: 'GET', path: DEMAND_ROUTE };
    try {
      const d = parseDemand(req, await this.json(req));
      const registered = registeredFromDemand(d);
      return registered ? { ...d, registered } : d;
    } catch (err) {
      if (err instanceof SchedulerApiDisabledError) return undefined;
      throw err;
    }
  }

  private async retire(
    payload: object,
    asked: readonly string[] | undefined,
    path = '/api/v1/retire_workers',
  ): Promise<RetireOutcome> {
    const req = { method: 'POST', path };
    return parseRetire(req, asked, await this.json(req, JSON.stringify(payload), this.opts.retireTimeoutMs ?? 600_000));
  }

  private async json(req: RequestInfo, payload?: string, timeoutMs = this.opts.timeoutMs): Promise<unknown> {
    const res = await this.send(req, payload, timeoutMs);
    if (res.status === 404 && req.path.startsWith('/api/v1')) {
      throw new SchedulerApiDisabledError(req, res.body);
    }
    if (res.status !== 200) throw new SchedulerHttpError(req, res.status, res.body);
    try {
      return JSON.parse(res.body) as unknown;
    } catch {
      throw new SchedulerResponseError(req, `not JSON: ${res.body.slice(0, 100)}`);
    }
  }

  private send(req: RequestInfo, payload?: string, timeoutMs = this.opts.timeoutMs): Promise<Response> {
    return new Promise<Response>((resolve, reject) => {
      let settled = false;
      const finish = (err: Error | undefined, res?: Response): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (err) reject(err);
        else resolve(res!);
      };
      const headers: Record<string, string | number> = { host: 'scheduler', connection: 'close' };
      if (payload !== undefined) {
        headers['content-type'] = 'application/json';
        headers['content-length'] = Buffer.byteLength(payload);
      }
      const r = request({
        method: req.method,
        path: req.path,
        headers,
        createConnection: (_opts, oncreate) => {
          Promise.resolve()
            .then(() => this.connect())
            .then((stream) => (settled ? stream.destroy() : oncreate(null, stream)))
            .catch((err: unknown) => oncreate(err instanceof Error ? err : new Error(String(err)), undefined!));
          return undefined;
        },
      });
      const timer = setTimeout(() => {
        finish(new SchedulerTimeoutError(req, timeoutMs));
        r.destroy();
      }, timeoutMs);
      r.on('error', (err) => finish(new SchedulerConnectionError(req, err)));
      r.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', (err) => finish(new SchedulerConnectionError(req, err)));
        res.on('end', () =>
          finish(undefined, { status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
        );
      });
      r.end(payload);
    });
  }
}

/** Connector for a scheduler reachable directly (local clusters, tests). */
export function tcpConnector(host: string, port: number): Connector {
  return () =>
    new Promise<Duplex>((resolve, reject) => {
      const socket = netConnect({ host, port });
      const onError = (err: Error): void => reject(err);
      socket.once('error', onError);
      socket.once('connect', () => {
        socket.off('error', onError);
        resolve(socket);
      });
    });
}
