// SchedulerClient failure paths and response shapes, against a scripted local HTTP server.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect } from 'node:net';
import type { Duplex } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SchedulerClient, tcpConnector } from '../../../src/dask/scheduler-client.js';
import {
  SchedulerApiDisabledError,
  SchedulerConnectionError,
  SchedulerHttpError,
  SchedulerResponseError,
  SchedulerTimeoutError,
} from '../../../src/dask/scheduler-errors.js';

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;
let handler: Handler = (_req, _body, res) => res.end('ok');
let server: Server;
let port = 0;
const bodies: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      bodies.push(body);
      handler(req, body, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as { port: number }).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const client = (timeoutMs = 2000): SchedulerClient =>
  new SchedulerClient(tcpConnector('127.0.0.1', port), { timeoutMs });
const reply =
  (status: number, body: string): Handler =>
  (_q, _b, res) => {
    res.statusCode = status;
    res.end(body);
  };

describe('SchedulerClient failures', () => {
  it('turns a 404 under /api/v1 into an "API not enabled" error with a hint', async () => {
    handler = reply(404, '<html>404: Not Found</html>');
    const err = await client()
      .adaptiveTarget()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SchedulerApiDisabledError);
    expect(err).toMatchObject({ status: 404, path: '/api/v1/adaptive_target' });
    expect((err as Error).message).toMatch(/^scheduler GET \/api\/v1\/adaptive_target: HTTP 404/);
  });

  it('reports other statuses with the body, and a 404 elsewhere as plain HTTP error', async () => {
    handler = reply(500, '{"Error": "Internal Server Error"}');
    await expect(client().retireWorkers(['tcp://x:1'])).rejects.toMatchObject({
      constructor: SchedulerHttpError,
      status: 500,
      body: '{"Error": "Internal Server Error"}',
    });
    handler = reply(404, 'nope');
    const err = await client()
      .identity()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SchedulerHttpError);
    expect(err).not.toBeInstanceOf(SchedulerApiDisabledError);
  });

  it('times out on a scheduler that never answers, and health() says false', async () => {
    handler = () => undefined;
    const t0 = Date.now();
    await expect(client(300).workers()).rejects.toBeInstanceOf(SchedulerTimeoutError);
    expect(Date.now() - t0).toBeLessThan(1500);
    expect(await client(300).health()).toBe(false);
  });

  it('reports a refused connection', async () => {
    const closed = new SchedulerClient(tcpConnector('127.0.0.1', 1), { timeoutMs: 2000 });
    await expect(closed.workers()).rejects.toBeInstanceOf(SchedulerConnectionError);
    expect(await closed.health()).toBe(false);
    const throwing = new SchedulerClient(() => Promise.reject(new Error('tunnel refused')), { timeoutMs: 2000 });
    await expect(throwing.workers()).rejects.toThrow(/tunnel refused/);
  });

  it('rejects JSON of the wrong shape', async () => {
    handler = reply(200, 'not json');
    await expect(client().workers()).rejects.toBeInstanceOf(SchedulerResponseError);
    handler = reply(200, '{"workers": 3}');
    await expect(client().workers()).rejects.toBeInstanceOf(SchedulerResponseError);
    handler = reply(200, '{"other": 3}');
    await expect(client().adaptiveTarget()).rejects.toBeInstanceOf(SchedulerResponseError);
  });
});

describe('SchedulerClient shapes', () => {
  it('accepts {desired_workers} as well as {workers}', async () => {
    handler = reply(200, '{"desired_workers": 4}');
    expect(await client().adaptiveTarget()).toBe(4);
    handler = reply(200, '{"workers": 2}');
    expect(await client().adaptiveTarget()).toBe(2);
  });

  it('posts {"workers"} / {"n"} and returns the retired addresses', async () => {
    handler = (_q, body, res) => {
      const req = JSON.parse(body) as { workers?: string[]; n?: number };
      const addrs = req.workers ?? Array.from({ length: req.n ?? 0 }, (_, i) => `tcp://h:${i}`);
      res.end(JSON.stringify(Object.fromEntries(addrs.map((a) => [a, { name: a }]))));
    };
    bodies.length = 0;
    expect(await client().retireWorkers(['tcp://a:1', 'tcp://b:2'])).toEqual({
      retired: ['tcp://a:1', 'tcp://b:2'],
      kept: [],
    });
    expect(await client().retireN(2)).toEqual(['tcp://h:0', 'tcp://h:1']);
    expect(await client().retireN(0)).toEqual([]);
    expect(bodies).toEqual(['{"workers":["tcp://a:1","tcp://b:2"]}', '{"n":2}']);
  });

  it('stringifies numeric names and skips malformed entries', async () => {
    handler = reply(200, '{"workers": [{"name": 0, "address": "tcp://a:1"}, {"name": "x"}, 5]}');
    expect(await client().workers()).toEqual([{ name: '0', address: 'tcp://a:1' }]);
  });

  it('works over any Duplex the connector hands back, sync or async', async () => {
    handler = reply(200, 'ok');
    const sync = new SchedulerClient(() => connect(port, '127.0.0.1') as Duplex, { timeoutMs: 2000 });
    expect(await sync.health()).toBe(true);
    const delayed = new SchedulerClient(
      () => new Promise<Duplex>((r) => setTimeout(() => r(connect(port, '127.0.0.1')), 50)),
      { timeoutMs: 2000 },
    );
    expect(await delayed.health()).toBe(true);
  });
});

describe('SchedulerClient.identityOrWorkers', () => {
  // What distributed 2024.12 answers while a worker's last heartbeat carried fine-performance
  // metrics: tornado's 500 page (json.dumps refused their tuple keys).
  const identityFails: Handler = (req, _b, res) => {
    if (req.url === '/json/identity.json') {
      res.statusCode = 500;
      res.end('<html><title>500: Internal Server Error</title><body>500: Internal Server Error</body></html>');
    } else res.end(JSON.stringify({ num_workers: 1, workers: [{ name: 'h1-0', address: 'tcp://10.0.0.2:4000' }] }));
  };

  it('falls back to the worker list, with nthreads and memory unknown and no metrics, on HTTP 500', async () => {
    handler = identityFails;
    const id = await client().identityOrWorkers();
    expect(id.workers).toEqual([
      { name: 'h1-0', address: 'tcp://10.0.0.2:4000', nthreads: 0, memoryLimit: 0, resources: {} },
    ]);
  });

  it('passes any other failure through', async () => {
    handler = reply(502, 'bad gateway');
    const err = await client()
      .identityOrWorkers()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SchedulerHttpError);
    expect(err).toMatchObject({ status: 502, path: '/json/identity.json' });
  });

  it('returns the identity when the scheduler can give it', async () => {
    handler = reply(
      200,
      JSON.stringify({
        address: 'tcp://s:8786',
        services: {},
        workers: { 'tcp://w:1': { name: 'w-0', nthreads: 2, memory_limit: 10, metrics: { executing: 1 } } },
      }),
    );
    const id = await client().identityOrWorkers();
    expect(id.workers.map((w) => [w.name, w.nthreads, w.metrics?.executing])).toEqual([['w-0', 2, 1]]);
  });

  it('asks identity.json no more once it failed with HTTP 500 (each ask is a traceback in the scheduler log)', async () => {
    const asked: string[] = [];
    handler = (req, b, res) => {
      asked.push(req.url ?? '');
      identityFails(req, b, res);
    };
    const c = client();
    for (let i = 0; i < 5; i++) expect((await c.identityOrWorkers()).workers.map((w) => w.name)).toEqual(['h1-0']);
    expect(asked.filter((u) => u === '/json/identity.json')).toHaveLength(1);
    expect(asked.filter((u) => u === '/api/v1/get_workers')).toHaveLength(5);
  });

  it('never asks identity.json when the preload answers: its workers carry size and load', async () => {
    const asked: string[] = [];
    const demand = {
      version: 1,
      groups: [],
      plain_pending: 0,
      workers: [
        {
          name: 'h1-0',
          address: 'tcp://10.0.0.2:4000',
          nthreads: 2,
          resources: { GPU: 1 },
          used: {},
          processing: 3,
          in_memory: 1,
          cpu: 50,
          memory: 1000,
          memory_limit: 4000,
        },
      ],
    };
    handler = (req, _b, res) => {
      asked.push(req.url ?? '');
      if (req.url === '/api/v1/sshcluster/demand') res.end(JSON.stringify(demand));
      else identityFails(req, _b, res);
    };
    const id = await client().identityOrWorkers();
    expect(id.workers).toEqual([
      {
        name: 'h1-0',
        address: 'tcp://10.0.0.2:4000',
        nthreads: 2,
        memoryLimit: 4000,
        resources: { GPU: 1 },
        metrics: { cpu: 50, memory: 1000, executing: 3, raw: {} },
      },
    ]);
    expect((await client().demand())?.registered?.map((w) => w.name)).toEqual(['h1-0']);
    expect(asked).not.toContain('/json/identity.json');
  });
});
