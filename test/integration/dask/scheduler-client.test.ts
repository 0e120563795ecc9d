// SchedulerClient against a REAL local dask scheduler (distributed 2022.12.1 under
// /usr/bin/python3), started the way the app starts it: buildRemoteCommand → sh -c →
// launcher → python -m distributed.cli.dask_scheduler, with schedulerEnv().
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildRemoteCommand, schedulerArgv, schedulerEnv, workerArgv, workerEnv } from '../../../src/dask/argv.js';
import { parseLauncherPid, parseSchedulerLine, parseWorkerLine } from '../../../src/dask/log-lines.js';
import { SchedulerClient, tcpConnector } from '../../../src/dask/scheduler-client.js';
import { SchedulerApiDisabledError } from '../../../src/dask/scheduler-errors.js';
import { SCHEDULER_DEMAND_PRELOAD_PATH } from '../../../src/dask/scheduler-preload.js';
import { freePort } from '../../e2e/harness/sshd.js';

const PYTHON = '/usr/bin/python3';
// TMPDIR: where boot.py installs the launcher (as on a host), removed afterwards.
const TMP = mkdtempSync(path.join(os.tmpdir(), 'sshc-client-'));
const BASE_ENV = { PATH: '/usr/bin:/bin', HOME: '/tmp', TMPDIR: TMP };

interface Proc {
  proc: ChildProcessWithoutNullStreams;
  lines: string[];
  pid: Promise<number>;
  exit: Promise<number | null>;
  /** Resolves with the first line (past or future) matching, else rejects after ms. */
  waitFor: (match: (line: string) => boolean, ms: number) => Promise<string>;
}

const procs: Proc[] = [];

function start(argv: string[], env: Record<string, string>): Proc {
  const { command, input } = buildRemoteCommand({
    setup: [],
    env,
    name: `p-${procs.length}`,
    argv,
    clusterId: 'unit-test',
    graceS: 3,
  });
  const proc = spawn('sh', ['-c', command], { env: BASE_ENV });
  proc.stdin.write(input);
  const lines: string[] = [];
  const listeners = new Set<(l: string) => void>();
  createInterface({ input: proc.stderr }).on('line', (l) => {
    lines.push(l);
    for (const f of listeners) f(l);
  });
  const pid = new Promise<number>((resolve) =>
    createInterface({ input: proc.stdout }).on('line', (l) => {
      const p = parseLauncherPid(l);
      if (p !== undefined) resolve(p);
    }),
  );
  const exit = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  const waitFor = (match: (l: string) => boolean, ms: number): Promise<string> =>
    new Promise((resolve, reject) => {
      const seen = lines.find(match);
      if (seen !== undefined) return resolve(seen);
      const timer = setTimeout(() => reject(new Error(`timeout; stderr:\n${lines.join('\n')}`)), ms);
      const f = (l: string): void => {
        if (!match(l)) return;
        clearTimeout(timer);
        listeners.delete(f);
        resolve(l);
      };
      listeners.add(f);
    });
  const p = { proc, lines, pid, exit, waitFor };
  procs.push(p);
  return p;
}

/** Waits for a state the scheduler reaches on its own (a worker's comm closing), polled. */
async function until(cond: () => Promise<boolean>, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`not so within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const kind = (parse: (l: string) => { kind: string } | undefined, k: string) => (l: string) => parse(l)?.kind === k;

let scheduler: Proc;
let address = '';
let client: SchedulerClient;
let noApiClient: SchedulerClient;
/** A third scheduler, with sshcluster's preload as the app starts it (its retire route). */
let preloaded: { client: SchedulerClient; address: string; dashboard: number };

beforeAll(async () => {
  const [port, dash, port2, dash2, port3, dash3] = await Promise.all([
    freePort(),
    freePort(),
    freePort(),
    freePort(),
    freePort(),
    freePort(),
  ]);
  const opts = { port, dashboardAddress: `127.0.0.1:${dash}`, host: '127.0.0.1' };
  scheduler = start(schedulerArgv(PYTHON, opts), schedulerEnv());
  // Same scheduler without the API routes: the default Dask configuration.
  const plain = start(
    schedulerArgv(PYTHON, { ...opts, port: port2, dashboardAddress: `127.0.0.1:${dash2}` }),
    workerEnv(),
  );
  const withPreload = start(
    [
      ...schedulerArgv(PYTHON, { ...opts, port: port3, dashboardAddress: `127.0.0.1:${dash3}` }),
      '--preload',
      SCHEDULER_DEMAND_PRELOAD_PATH,
    ],
    schedulerEnv(),
  );
  const line = await scheduler.waitFor(kind(parseSchedulerLine, 'listening'), 15_000);
  address = (parseSchedulerLine(line) as { address: string }).address;
  const line3 = await withPreload.waitFor(kind(parseSchedulerLine, 'listening'), 15_000);
  await Promise.all([
    scheduler.waitFor(kind(parseSchedulerLine, 'dashboard'), 5000),
    plain.waitFor(kind(parseSchedulerLine, 'dashboard'), 15_000),
    withPreload.waitFor(kind(parseSchedulerLine, 'dashboard'), 15_000),
  ]);
  client = new SchedulerClient(tcpConnector('127.0.0.1', dash), { timeoutMs: 5000 });
  noApiClient = new SchedulerClient(tcpConnector('127.0.0.1', dash2), { timeoutMs: 5000 });
  preloaded = {
    client: new SchedulerClient(tcpConnector('127.0.0.1', dash3), { timeoutMs: 5000 }),
    address: (parseSchedulerLine(line3) as { address: string }).address,
    dashboard: dash3,
  };
}, 20_000);

afterAll(async () => {
  for (const p of procs) p.proc.stdin.end(); // the launcher stops its group on EOF
  const all = Promise.all(procs.map((p) => p.exit));
  await Promise.race([all, new Promise((r) => setTimeout(r, 6000))]);
  for (const p of procs) {
    const pid = await Promise.race([p.pid, Promise.resolve(undefined)]);
    for (const target of [pid && -pid, p.proc.pid]) {
      try {
        if (target) process.kill(target, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
  rmSync(TMP, { recursive: true, force: true });
}, 10_000);

const WORKER = { nthreads: 2, nworkers: 4, memoryLimit: '1GiB', resources: { GPU: 2 }, deathTimeoutS: 10 };

describe('SchedulerClient on a real scheduler', () => {
  it('reports health and an adaptive target', async () => {
    expect(address).toMatch(/^tcp:\/\/127\.0\.0\.1:\d+$/);
    expect(await client.health()).toBe(true);
    expect(await client.adaptiveTarget()).toBe(0);
    expect(await client.workers()).toEqual([]);
  });

  it('sees a worker by its --name, with identity details, and retires it (no nanny: it exits)', async () => {
    const w = start(workerArgv(PYTHON, address, 'w-0', { ...WORKER, nanny: false }), workerEnv());
    const listening = await w.waitFor(kind(parseWorkerLine, 'listening'), 10_000);
    const workerAddress = (parseWorkerLine(listening) as { address: string }).address;
    await w.waitFor(kind(parseWorkerLine, 'registered'), 10_000);

    expect(await client.workers()).toEqual([{ name: 'w-0', address: workerAddress }]);
    const identity = await client.identity();
    expect(identity.address).toBe(address);
    expect(identity.workers).toHaveLength(1);
    expect(identity.workers[0]).toMatchObject({
      name: 'w-0',
      address: workerAddress,
      nthreads: 2,
      memoryLimit: 2 ** 30,
      resources: { GPU: 2 },
    });
    expect(identity.workers[0]?.metrics?.cpu).toEqual(expect.any(Number));

    expect(await client.retireWorkers([workerAddress])).toEqual({ retired: [workerAddress], kept: [] });
    expect(await client.workers()).toEqual([]);
    expect(await w.exit).toBe(0);
  });

  it('retireN picks a worker; a nanny then RESTARTS it under the same name (Dask quirk)', async () => {
    const w = start(workerArgv(PYTHON, address, 'w-1', { ...WORKER, nanny: true }), workerEnv());
    await w.waitFor(kind(parseWorkerLine, 'registered'), 10_000);
    const [before] = await client.workers();
    expect(before?.name).toBe('w-1');
    expect(await client.retireN(1)).toEqual([before?.address]);
    await w.waitFor(kind(parseWorkerLine, 'restarting'), 10_000);
    await w.waitFor(
      (l) =>
        parseWorkerLine(l)?.kind === 'registered' && w.lines.filter(kind(parseWorkerLine, 'registered')).length > 1,
      10_000,
    );
    const after = await client.workers();
    expect(after.map((x) => x.name)).toEqual(['w-1']);
    expect(after[0]?.address).not.toBe(before?.address);
    w.proc.stdin.end(); // what the app must do after a retire: stop the process group
    expect(await w.exit).not.toBeNull();
    expect(await client.workers()).toEqual([]);
  });

  it('retire with keep: the preload keeps the worker until its process ends, so it never closes itself', async () => {
    const w = start(workerArgv(PYTHON, preloaded.address, 'w-2', { ...WORKER, nanny: false }), workerEnv());
    await w.waitFor(kind(parseWorkerLine, 'registered'), 10_000);
    const [worker] = await preloaded.client.workers();
    expect(worker?.name).toBe('w-2');
    expect(await preloaded.client.retireWorkers([worker!.address], { keep: true })).toEqual({
      retired: [worker!.address],
      kept: [],
    });
    // Dask's own route has removed it by now (the test above); this one keeps it, closing
    // gracefully, so no heartbeat is told "unaware" and the stop's SIGTERM is the only close.
    expect(await preloaded.client.workers()).toEqual([worker]);
    w.proc.stdin.end();
    expect(await w.exit).not.toBeNull();
    expect(w.lines.filter((l) => l.includes('Scheduler was unaware'))).toEqual([]);
    await until(async () => (await preloaded.client.workers()).length === 0, 10_000);
  });

  it("the preload's retire route answers a malformed body with 400, not a traceback", async () => {
    for (const body of ['not json', '[1]', '{"workers": "x"}', '{"workers": [1]}', '{}']) {
      const res = await fetch(`http://127.0.0.1:${preloaded.dashboard}/api/v1/sshcluster/retire`, {
        method: 'POST',
        body,
      });
      expect([body, res.status, await res.json()]).toEqual([
        body,
        400,
        { error: 'expected {"workers": [address, ...]}' },
      ]);
    }
  });

  it("retire with keep falls back to Dask's route on a scheduler without the preload", async () => {
    const w = start(workerArgv(PYTHON, address, 'w-3', { ...WORKER, nanny: false }), workerEnv());
    await w.waitFor(kind(parseWorkerLine, 'registered'), 10_000);
    const [worker] = await client.workers();
    expect(await client.retireWorkers([worker!.address], { keep: true })).toEqual({
      retired: [worker!.address],
      kept: [],
    });
    expect(await client.workers()).toEqual([]);
    w.proc.stdin.end();
    expect(await w.exit).not.toBeNull();
  });

  it('says the API is not enabled when the scheduler was started without it', async () => {
    expect(await noApiClient.health()).toBe(true);
    const err = await noApiClient.workers().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SchedulerApiDisabledError);
    expect((err as SchedulerApiDisabledError).hint).toMatch(/distributed\.http\.scheduler\.api/);
  });
});
