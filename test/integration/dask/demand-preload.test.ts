// The scheduler preload (src/dask/remote/preload/scheduler_demand.py) in a REAL Dask scheduler
// (distributed under /usr/bin/python3, in-process with two workers: one declaring
// GPU=2, one plain), read through SchedulerClient.demand() like the controller will.
// SSHCLUSTER_TEST_PYTHON=<interpreter> runs it under another Dask (e.g. the e2e
// harness's Debian trixie wrapper, which sees only /tmp: both files are copied there).
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SchedulerClient, tcpConnector } from '../../../src/dask/scheduler-client.js';
import { parseRetire } from '../../../src/dask/retire-json.js';
import { SCHEDULER_DEMAND_PRELOAD_PATH } from '../../../src/dask/scheduler-preload.js';

const PYTHON = process.env['SSHCLUSTER_TEST_PYTHON'] || '/usr/bin/python3';
const HARNESS = fileURLToPath(new URL('../fixtures/dask/demand_cluster.py', import.meta.url));
const RERUN = fileURLToPath(new URL('../fixtures/dask/rerun_progress.py', import.meta.url));
const CANCELLED = fileURLToPath(new URL('../fixtures/dask/cancelled_progress.py', import.meta.url));
const PRELOAD_FIXTURE = fileURLToPath(new URL('../fixtures/dask/preload_fixture.py', import.meta.url));
const dir = mkdtempSync('/tmp/sshcluster-demand-');

let proc: ChildProcessWithoutNullStreams;
let stderr = '';
let ports: { http: number; text: number; bare: number };

const client = (port: number): SchedulerClient =>
  new SchedulerClient(tcpConnector('127.0.0.1', port), { timeoutMs: 15_000 });

beforeAll(async () => {
  const [harness, preload] = [join(dir, 'demand_cluster.py'), join(dir, 'scheduler_demand.py')];
  copyFileSync(HARNESS, harness);
  copyFileSync(SCHEDULER_DEMAND_PRELOAD_PATH, preload);
  proc = spawn(PYTHON, [harness, preload], {
    env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', HOME: '/tmp', PYTHONDONTWRITEBYTECODE: '1' },
  });
  proc.stderr.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-4000)));
  const exited = new Promise<never>((_, reject) =>
    proc.on('exit', (code) => reject(new Error(`harness exited ${code}:\n${stderr}`))),
  );
  const first = new Promise<string>((resolve) => createInterface({ input: proc.stdout }).once('line', resolve));
  ports = JSON.parse(await Promise.race([first, exited])) as typeof ports;
}, 120_000);

afterAll(() => {
  if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

describe('GET /api/v1/sshcluster/demand', () => {
  it('groups pending restricted work by restriction set, with counts and the scheduler duration estimates', async () => {
    const d = await client(ports.http).demand();
    expect(d).toBeDefined();
    const groups = [...d!.groups].sort((a, b) => Object.keys(a.resources).length - Object.keys(b.resources).length);
    // 10 x GPU=1 on a worker with GPU=2: two run, eight wait there; 3 s each is the
    // configured default-task-duration of the "hold" prefix.
    expect(groups[0]).toEqual({
      resources: { GPU: 1 },
      unrunnable: 0,
      waiting: 8,
      running: 2,
      durationS: 24,
      unknown: 0,
    });
    // No worker declares MEM: unrunnable, durations unknown (Dask's 0.5 s guess each).
    expect(groups[1]).toEqual({
      resources: { GPU: 1, MEM: 64e9 },
      unrunnable: 3,
      waiting: 0,
      running: 0,
      durationS: 1.5,
      unknown: 3,
    });
    // The four plain tasks are not resource demand, and have finished.
    expect(groups).toHaveLength(2);
    expect(d!.plainPending).toBe(0);
    expect(d!.distributed).toMatch(/^20\d\d\.\d+/);
  });

  it("lists each worker's declared resources", async () => {
    const d = await client(ports.http).demand();
    const byName = Object.fromEntries(d!.workers.map((w) => [w.name, w]));
    expect(Object.keys(byName).sort()).toEqual(['cpu-0', 'gpu-0']);
    expect(byName['gpu-0']).toMatchObject({ nthreads: 2, resources: { GPU: 2 } });
    expect(byName['cpu-0']).toMatchObject({ nthreads: 1, resources: {} });
    expect(byName['gpu-0']!.address).toMatch(/^tcp:\/\/127\.0\.0\.1:\d+$/);
  });

  it('adds the figures status and the dashboard show: tasks by state, the newest computation, clients, the scheduler, each worker', async () => {
    const d = (await client(ports.http).demand())!;
    const f = d.figures!;
    expect(f.tasks).toMatchObject({ processing: 10, 'no-worker': 3 });
    // One computation: the 4 plain tasks finished (done), 10 + 3 still to run.
    expect(f.progress).toMatchObject({ done: 4, total: 17, erred: 0, killedWorkers: 0 });
    // By task prefix: the 4 plain tasks done, the restricted ones waiting.
    expect(f.progress?.prefixes?.find((p) => p.prefix === 'plain')).toEqual({
      prefix: 'plain',
      done: 4,
      erred: 0,
      total: 4,
      killedWorkers: 0,
    });
    expect(f.progress?.prefixes?.find((p) => p.prefix === 'hold')).toEqual({
      prefix: 'hold',
      done: 0,
      erred: 0,
      total: 10,
      killedWorkers: 0,
    });
    expect(f.progress?.prefixes?.reduce((n, p) => n + p.total, 0)).toBe(17);
    expect(f.clients).toBe(1);
    expect(f.scheduler.memoryBytes).toBeGreaterThan(10_000_000);
    const byName = Object.fromEntries(d.workers.map((w) => [w.name, w.figures]));
    expect(byName['gpu-0']).toMatchObject({ processing: 10, inMemory: 0 });
    expect(byName['gpu-0']!.idleS).toBeUndefined();
    expect(byName['cpu-0']).toMatchObject({ processing: 0, idleS: expect.any(Number) });
    for (const w of Object.values(byName)) {
      expect(w!.memoryBytes).toBeGreaterThan(10_000_000);
      expect(w!.memoryLimitBytes).toBeGreaterThan(0);
    }
    // Seen idle by the first request, idle longer by the next.
    await new Promise((r) => setTimeout(r, 300));
    const again = (await client(ports.http).demand())!.workers.find((w) => w.name === 'cpu-0')!.figures!;
    expect(again.idleS!).toBeGreaterThan(byName['cpu-0']!.idleS!);
  });

  it("works when the preload is given as the text of the module, names the scheduler's process and its parents, and counts a plain task waiting for any worker", async () => {
    const d = await client(ports.text).demand();
    expect(d).toEqual({
      pids: expect.any(Array),
      distributed: expect.any(String),
      groups: [],
      plainPending: 1,
      workers: [],
      registered: [],
      figures: {
        tasks: expect.any(Object),
        progress: {
          done: 0,
          total: 1,
          erred: 0,
          killedWorkers: 0,
          prefixes: [{ prefix: 'plain-alone', done: 0, erred: 0, total: 1, killedWorkers: 0 }],
        },
        clients: 1,
        scheduler: expect.any(Object),
      },
    });
    // Queued (2022.12: a lone task is a root task) or no-worker: either way it waits.
    expect(Object.entries(d!.figures!.tasks)).toContainEqual([expect.stringMatching(/^(queued|no-worker)$/), 1]);
    expect(Object.values(d!.figures!.tasks)).toEqual([1]);
    // The harness process hosts the schedulers; this test's process started it.
    expect(d!.pids!.slice(0, 2)).toEqual([proc.pid, process.pid]);
  });

  /** Runs a progress fixture (with what it imports) beside the preload; its JSON line. */
  function runFixture(fixture: string): unknown {
    const copy = join(dir, basename(fixture));
    copyFileSync(fixture, copy);
    copyFileSync(PRELOAD_FIXTURE, join(dir, basename(PRELOAD_FIXTURE)));
    const r = spawnSync(PYTHON, [copy, join(dir, 'scheduler_demand.py')], {
      encoding: 'utf8',
      env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', HOME: '/tmp', PYTHONDONTWRITEBYTECODE: '1' },
      timeout: 60_000,
    });
    expect(r.status, r.stderr).toBe(0);
    return JSON.parse(r.stdout);
  }

  it('does not carry the errors of a forgotten computation into a re-run of the same task prefix', () => {
    // Found by the h40ssh trial: after a KilledWorker, the same function run again by a new
    // client (all 80 tasks done) showed in status as "78/80 done, 2 erred".
    const out = runFixture(RERUN) as Record<'first' | 'rerun', Record<string, unknown>>;
    expect(out.first).toMatchObject({ done: 0, total: 2, erred: 2 });
    expect(out.rerun).toMatchObject({ done: 4, total: 4, erred: 0, killed_workers: 0 });
  });

  it('counts as done only the tasks that ran, not those forgotten unrun when their client left', () => {
    // Found by the h43trial trial: 20 tasks, the client gone after ~2 of them ran, and
    // status said "newest computation 20/20 done (100%)".
    const progress = runFixture(CANCELLED) as Record<string, unknown>;
    expect(progress).toMatchObject({ done: 2, total: 6, erred: 0 });
    expect(progress['prefixes']).toEqual([expect.objectContaining({ prefix: 'step', done: 2, total: 6 })]);
  });

  it('is undefined (the caller falls back) on a scheduler started without the preload', async () => {
    expect(await client(ports.bare).demand()).toBeUndefined();
  });
});

describe('POST /api/v1/sshcluster/retire', () => {
  it("answers JSON whatever Dask's identity of a retired worker holds (2024.12: metrics keyed by tuples)", () => {
    // The identity 2024.12 gives for a worker that ran tasks since its last heartbeat: the
    // route answered 500 on it after the retirement had happened.
    const script = [
      'import importlib.util, json, sys',
      'spec = importlib.util.spec_from_file_location("scheduler_demand", sys.argv[1])',
      'm = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)',
      'identity = {"name": "n1-0", "metrics": {"digests_total_since_heartbeat": {("execute", "inc", "thread-cpu", "seconds"): 0.1}}}',
      'print(m.retire_answer({"tcp://10.0.0.2:40000": identity}, {"tcp://10.0.0.3:40000": {"results": 2}}))',
    ].join('\n');
    const r = spawnSync(PYTHON, ['-c', script, SCHEDULER_DEMAND_PRELOAD_PATH], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const body = JSON.parse(r.stdout) as unknown;
    expect(body).toEqual({
      retired: { 'tcp://10.0.0.2:40000': { name: 'n1-0' } },
      kept: { 'tcp://10.0.0.3:40000': { results: 2 } },
    });
    expect(parseRetire({ method: 'POST', path: '/api/v1/sshcluster/retire' }, undefined, body)).toEqual({
      retired: ['tcp://10.0.0.2:40000'],
      kept: [{ address: 'tcp://10.0.0.3:40000', results: 2 }],
    });
  });
});
