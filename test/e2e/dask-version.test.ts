// Which Dask the hosts run, and the code paths that differ by version, checked on a real
// scheduler of each line (vitest projects e2e: 2022.12, e2e-dask2024: 2024.12):
// - the adaptive target: distributed < 2023.8 counts threads, later ones workers
//   (src/adaptive/target.ts corrects the former);
// - the scheduler HTTP routes the controller calls (src/dask/scheduler-client.ts,
//   enabled through DASK_API_ROUTES in src/dask/dask-env.ts).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SchedulerClient, tcpConnector } from '../../src/dask/scheduler-client.js';
import type { StatusJson } from '../../src/control/status-document.js';
import { daskClient, runCli, sleep, until } from './cli-driver.js';
import { clientPython, getTestHosts } from './harness/context.js';
import { daskProcessesIn, writeHostsYaml } from './harness/netns-hosts.js';

const info = getTestHosts();
const [h0, h1] = info.hosts as [(typeof info.hosts)[0], (typeof info.hosts)[0]];
const tmp = (name: string) => path.join(info.dir, name);
const NTHREADS = 4;
const TASKS = 16;
// Tasks of unknown duration count this long, so the load's cpu term is capped by the
// task count (16), not by occupancy: the raw target does not depend on timing.
const env = {
  DASK_TEMPORARY_DIRECTORY: tmp('dask-scratch'),
  DASK_DISTRIBUTED__SCHEDULER__UNKNOWN_TASK_DURATION: '60s',
};
let address = '';

beforeAll(() => {
  const file = writeHostsYaml(
    tmp('version.yaml'),
    { ...info, hosts: [h0, h1] },
    {
      env,
      name: 'version',
      // On the bridge address, so this test can call the scheduler's HTTP API directly.
      scheduler_options: { port: 8786, dashboard_address: ':8787' },
      worker_options: { nthreads: NTHREADS },
    },
  );
  const up = runCli(['up', file, '--detach'], {}, 120_000);
  expect(up.code, up.stdout + up.stderr).toBe(0);
  address = `tcp://${h0.ip}:8786`;
});

afterAll(() => {
  runCli(['down', '--name', 'version'], {}, 120_000);
});

/**
 * A Dask client in the background, running `code` after connecting; `first` resolves with
 * its first stdout line (JSON), `done` with all its output once it exits.
 */
function background<T>(code: string): { first: Promise<T>; done: Promise<string> } {
  const script = `import json, os, time\nfrom distributed import Client\nc = Client(${JSON.stringify(address)}, timeout=60)\n${code}\nc.close()\n`;
  const p = spawn(clientPython(), ['-c', script]);
  let out = '';
  let err = '';
  let onLine: (line: string) => void = () => {};
  p.stdout.on('data', (d) => {
    out += d;
    if (out.includes('\n')) onLine(out.split('\n')[0]!);
  });
  p.stderr.on('data', (d) => (err += d));
  const done = new Promise<string>((resolve, reject) =>
    p.on('close', (c) => (c === 0 ? resolve(out) : reject(new Error(`client exited ${c}: ${err.slice(-2000)}`)))),
  );
  const first = new Promise<T>((resolve, reject) => {
    onLine = (line) => resolve(JSON.parse(line) as T);
    done.then(() => reject(new Error(`client printed no line: ${out}`)), reject);
  });
  return { first, done };
}

/** 16 tasks that block until `stop` exists; first line: the scheduler's view once all are in. */
const blockingLoad = (stop: string) =>
  background<{ raw: number; processing: number; queued: number }>(`
stop = ${JSON.stringify(stop)}
def block(i):
    while not os.path.exists(stop):
        time.sleep(0.05)
    return i
futures = c.map(block, range(${TASKS}))
def view(dask_scheduler):
    processing = sum(len(ws.processing) for ws in dask_scheduler.workers.values())
    queued = len(dask_scheduler.queued) + len(dask_scheduler.unrunnable)
    return processing, queued, dask_scheduler.adaptive_target()
deadline = time.time() + 60
while True:
    processing, queued, raw = c.run_on_scheduler(view)
    if (processing > 0 and processing + queued == ${TASKS}) or time.time() > deadline:
        break
    time.sleep(0.1)
print(json.dumps({"raw": raw, "processing": processing, "queued": queued}), flush=True)
print(sum(c.gather(futures)), flush=True)`);

/** Short tasks, batch after batch, until `stop` exists: every heartbeat reports finished tasks. */
const churn = (stop: string) =>
  background<{ batches: number }>(`
stop = ${JSON.stringify(stop)}
batches = 0
while not os.path.exists(stop) or batches == 0:
    c.gather(c.map(lambda x: x + 1, range(50), pure=False))
    batches += 1
    if batches == 1:
        print(json.dumps({"batches": batches}), flush=True)
print(batches, flush=True)`);

describe(`Dask ${info.dask} on the hosts`, () => {
  it('scheduler and worker run the distributed this project names (and it is printed)', () => {
    const out = daskClient(
      address,
      'print(json.dumps([c.run_on_scheduler(lambda: __import__("distributed").__version__), sorted(set(c.run(lambda: __import__("distributed").__version__).values()))]))',
    );
    const [scheduler, workers] = JSON.parse(out.trim()) as [string, string[]];
    console.log(
      `e2e: Dask under test: scheduler distributed ${scheduler}, workers ${workers.join(', ')} (vitest project for Dask ${info.dask}, remote_python ${info.python})`,
    );
    expect(scheduler).toBe(info.daskVersion);
    expect(scheduler.startsWith(`${info.dask}.`)).toBe(true);
    expect(workers).toEqual([info.daskVersion]);
  });

  it("the worker's nanny waits for the scheduler with our preload, and the scheduler logs nothing of its probes", () => {
    const logs = runCli(['logs', '--name', 'version', '--tail', '1000']);
    expect(logs.code, logs.stderr).toBe(0);
    // The nanny is given the wait preload (loaded by module name from the cluster's files,
    // nothing copied: planted-dir.test.ts).
    const nanny = daskProcessesIn(h1).find((p) => p.argv.includes('--preload-nanny'));
    expect(nanny?.argv[nanny.argv.indexOf('--preload-nanny') + 1]).toMatch(/scheduler_wait/);
    expect(logs.stdout).toMatch(/Registered to: +tcp:/);
    // Its own lines (Dask's "Run preload setup: scheduler_wait" and the like) are held back
    // while the worker runs well.
    expect(logs.stdout).not.toMatch(/preload/i);
    expect(logs.stdout).not.toMatch(/closed before handshake/);
  });

  it('the adaptive target: threads on 2022.12, workers on 2024.12, the same worker count after our correction', async () => {
    const stop = tmp('version-stop');
    fs.rmSync(stop, { force: true });
    const load = blockingLoad(stop);
    try {
      const view = await load.first;
      expect(view.processing + view.queued).toBe(TASKS);
      // 16 ready tasks on one 4-thread worker: 16 threads, or 16 / 4 = 4 workers.
      expect(view.raw).toBe(info.dask === '2022.12' ? TASKS : TASKS / NTHREADS);
      const dry = runCli(['adapt', '--name', 'version', '--min', '0', '--max', '10', '--dry-run']);
      expect(dry.code, dry.stderr).toBe(0);
      expect(dry.stdout).toMatch(
        new RegExp(`would scale up by ${TASKS / NTHREADS - 1} \\(target ${TASKS / NTHREADS}\\)`),
      );
      // The scheduler's figures in status (sshcluster's preload on this version): none of
      // the 16 done, all processing or queued (2024.12 queues past 1.1 × threads).
      const st = await until('the task figures in status --json', () => {
        const r = runCli(['status', '--json', '--name', 'version']);
        const doc = JSON.parse(r.stdout) as StatusJson;
        return doc.tasks ? doc : undefined;
      });
      const t = st.tasks!;
      expect(t.progress).toMatchObject({ done: 0, total: TASKS, erred: 0, killedWorkers: 0 });
      // One task prefix, all of the computation's tasks (the preload counts by prefix).
      expect(t.progress!.prefixes!.map(({ prefix, done, erred, total }) => ({ prefix, done, erred, total }))).toEqual([
        { prefix: 'block', done: 0, erred: 0, total: TASKS },
      ]);
      expect((t.byState['processing'] ?? 0) + (t.byState['queued'] ?? 0)).toBe(TASKS);
      expect(t.clients).toBe(1);
      const worker = st.workers.find((w) => w.host === h1.ip)!;
      expect(worker.processing).toBe(t.byState['processing']);
      expect(worker.idleS).toBeUndefined();
      const text = await until('the task figures in status', () => {
        const out = runCli(['status', '--name', 'version']).stdout;
        return out.includes('  tasks: ') ? out : undefined;
      });
      expect(text).toContain(`; newest computation 0/${TASKS} done (0%)`);
    } finally {
      fs.writeFileSync(stop, '');
    }
    expect((await load.done).trim().split('\n').pop()).toBe(String((TASKS * (TASKS - 1)) / 2));
  });

  it('reads the workers on this version even while tasks finish all the time (2024.12: identity.json fails then)', async () => {
    const api = new SchedulerClient(tcpConnector(h0.ip, 8787), { timeoutMs: 20_000 });
    const stop = tmp('churn-stop');
    fs.rmSync(stop, { force: true });
    const load = churn(stop);
    let identityFailures = 0;
    const seen: string[][] = [];
    try {
      await load.first;
      for (let i = 0; i < 20; i++) {
        await api.identity().catch(() => identityFailures++);
        seen.push((await api.identityOrWorkers()).workers.map((w) => w.name));
        await sleep(100);
      }
    } finally {
      fs.writeFileSync(stop, '');
    }
    await load.done;
    console.log(
      `e2e: distributed ${info.daskVersion}: /json/identity.json failed ${identityFailures}/20 times while tasks finished (the worker list stands in when it does)`,
    );
    expect(seen).toEqual(Array.from({ length: 20 }, () => [`${h1.ip}-0`]));
  });

  it('answers every scheduler HTTP route the controller calls', async () => {
    const api = new SchedulerClient(tcpConnector(h0.ip, 8787), { timeoutMs: 20_000 });
    expect(await api.health()).toBe(true);
    const workers = await api.workers();
    expect(workers.map((w) => w.name)).toEqual([`${h1.ip}-0`]);
    expect(await api.adaptiveTarget()).toBeGreaterThanOrEqual(0);
    // The identity of a worker that just ran tasks is not JSON on 2024.12: wait for a
    // heartbeat without finished tasks.
    const deadline = Date.now() + 60_000;
    let identity = await api.identity().catch(() => undefined);
    while (!identity && Date.now() < deadline) {
      await sleep(200);
      identity = await api.identity().catch(() => undefined);
    }
    // A worker holding data that no other worker can take is not retired: wait until the
    // earlier tests' keys are released.
    daskClient(
      address,
      'import time\nwhile c.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.tasks)):\n    time.sleep(0.1)',
    );
    expect(identity?.workers.map((w) => [w.name, w.nthreads])).toEqual([[`${h1.ip}-0`, NTHREADS]]);
    expect(await api.retireN(1)).toEqual([workers[0]!.address]);
  });

  it("retires through sshcluster's preload route, and the scheduler keeps the worker until it is stopped", async () => {
    const api = new SchedulerClient(tcpConnector(h0.ip, 8787), { timeoutMs: 20_000 });
    // Dask's route removed the worker above; its nanny (or, failing that, the controller)
    // starts it again under the same name.
    const deadline = Date.now() + 60_000;
    let workers = await api.workers();
    while (!workers.length && Date.now() < deadline) {
      await sleep(200);
      workers = await api.workers();
    }
    expect(workers.map((w) => w.name)).toEqual([`${h1.ip}-0`]);
    // What `down` does: retire with keep. This route keeps it (closing gracefully), so it
    // never learns from a heartbeat that it was removed and closes itself mid-stop.
    expect(await api.retireWorkers([workers[0]!.address], { keep: true })).toEqual({
      retired: [workers[0]!.address],
      kept: [],
    });
    expect(await api.workers()).toEqual(workers);
  });
});
