// Changing a running cluster on real namespace hosts and real Dask: plan and apply add a
// host, drain a removed one and roll changed workers while a computation keeps its
// results; a roll that cannot start stops after one batch; drain/undrain; a controller
// killed in the middle of an apply.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { daskClient, daskClientInBackground, runCli, sleep, startCli, STATE_HOME, until } from './cli-driver.js';
import { getTestHosts } from './harness/context.js';
import { daskProcessesIn, writeHostsYaml } from './harness/netns-hosts.js';

const info = getTestHosts();
const [s0, h1, h2, h3] = info.hosts as [
  (typeof info.hosts)[0],
  (typeof info.hosts)[0],
  (typeof info.hosts)[0],
  (typeof info.hosts)[0],
];
const tmp = (name: string) => path.join(info.dir, name);
const env = { DASK_TEMPORARY_DIRECTORY: tmp('dask-scratch') };
const NAME = 'live';

interface Status {
  schedulerAddress: string;
  desiredWorkers: number;
  startedAt: string;
  hosts: { name: string; state: string; workers: number }[];
  workers: { name: string; host: string; pid: number | null; state: string; nthreads: number }[];
}

function status(): Status {
  const r = runCli(['status', '--name', NAME, '--json']);
  if (r.code !== 0) throw new Error(`status failed (${r.code}): ${r.stderr}`);
  return JSON.parse(r.stdout) as Status;
}
const running = (s: Status) => s.workers.filter((w) => w.state === 'running');

/** A host file of the scheduler host s0 and these worker hosts (each 1 worker unless said). */
function hostFile(
  file: string,
  workers: (string | Record<string, unknown>)[],
  workerOptions: Record<string, unknown> = { nthreads: 1 },
): string {
  return writeHostsYaml(
    tmp(file),
    { ...info, hosts: [s0] },
    { env, name: NAME, worker_options: workerOptions, hosts: [s0.ip, ...workers] },
  );
}

interface StateJson {
  clusterId: string;
  controller: { pid: number; startedAt: string };
  pendingRoll?: string[];
  formerHosts?: { name: string; env: Record<string, string> }[];
}
const readOr = (file: string) => {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
};
const stateFile = () =>
  JSON.parse(fs.readFileSync(path.join(STATE_HOME, 'sshcluster', NAME, 'state.json'), 'utf8')) as StateJson;

afterEach(() => {
  runCli(['down', '--name', NAME], {}, 120_000);
});

describe('changing a running cluster', () => {
  it('adds a host, drains a removed one and rolls changed workers while 120 tasks keep their results', async () => {
    const a = hostFile('a.yaml', [h1.ip, h2.ip]);
    const up = runCli(['up', a, '--detach'], {}, 120_000);
    expect(up.code, up.stdout + up.stderr).toBe(0);
    expect(runCli(['plan', a]).code).toBe(0);
    fs.writeFileSync(tmp('broken.yaml'), 'hosts: [a]\nworker_options: {nthreads: x}\n');
    const broken = runCli(['plan', tmp('broken.yaml'), '--name', NAME]);
    expect([broken.code, broken.stderr]).toEqual([
      2,
      expect.stringContaining('broken.yaml:2:28 worker_options.nthreads'),
    ]);
    const address = status().schedulerAddress;
    // Results stay on the workers until the end: retiring a worker must move them.
    const work = daskClientInBackground(
      address,
      'fs = c.map(lambda x: (time.sleep(1), x)[1], range(120))\nwait(fs)\nprint(sum(c.gather(fs)))',
    );

    const b = hostFile('b.yaml', [h1.ip, h2.ip, h3.ip]);
    const planB = runCli(['plan', b]);
    expect(planB.code, planB.stderr).toBe(3);
    expect(planB.stdout).toContain(`+ host ${h3.ip}: 1 worker(s)`);
    const applyB = runCli(['apply', b], {}, 180_000);
    expect(applyB.code, applyB.stdout + applyB.stderr).toBe(0);
    expect(
      running(status())
        .map((w) => w.host)
        .sort(),
    ).toEqual([h1.ip, h2.ip, h3.ip].sort());

    const c = hostFile('c.yaml', [h1.ip, h3.ip]);
    const planC = runCli(['plan', c, '--json']);
    expect(planC.code).toBe(3);
    expect(JSON.parse(planC.stdout)).toMatchObject({
      changes: true,
      hostsRemoved: [h2.ip],
      counts: [{ host: h2.ip, from: 1, to: 0 }],
    });
    const applyC = runCli(['apply', c], {}, 180_000);
    expect(applyC.code, applyC.stdout + applyC.stderr).toBe(0);
    expect(applyC.stdout).toContain(`- host ${h2.ip}: drain 1 worker(s)`);
    expect(daskProcessesIn(h2)).toEqual([]);
    expect(status().hosts.map((h) => h.name)).not.toContain(h2.ip);

    const d = hostFile('d.yaml', [h1.ip, h3.ip], { nthreads: 2 });
    const planD = runCli(['plan', d]);
    expect(planD.code).toBe(3);
    expect(planD.stdout).toContain('rolling restart of 1 worker(s): worker_options.nthreads 1 → 2');
    let fewest = Infinity;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        fewest = Math.min(fewest, Number(daskClient(address, 'print(len(c.scheduler_info()["workers"]))').trim()));
        await sleep(200);
      }
    })();
    const applyD = runCli(['apply', d], {}, 180_000);
    sampling = false;
    await sampler;
    expect(applyD.code, applyD.stdout + applyD.stderr).toBe(0);
    expect(applyD.stdout).toContain('2 restarted');
    expect(fewest).toBeGreaterThanOrEqual(1); // N − 1 of 2, sampled throughout the roll
    expect(running(status()).map((w) => w.nthreads)).toEqual([2, 2]);
    expect(runCli(['plan', d]).code).toBe(0);

    expect(Number((await work).trim())).toBe(7140); // all 120 results, after 3 changes
  });

  it('stops a roll whose new spec cannot start after the first batch; the old workers keep serving', async () => {
    const a = hostFile('bad-a.yaml', [h1.ip, h2.ip]);
    expect(runCli(['up', a, '--detach'], {}, 120_000).code).toBe(0);
    const before = status();
    const bad = hostFile('bad-b.yaml', [{ host: h1.ip, remote_python: '/opt/no/python3' }, h2.ip]);
    const r = runCli(['apply', bad], {}, 180_000);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(
        `the rolling restart stopped at ${h1.ip.replace(/\./g, '\\.')}-0: .*exited after its restart: .*/opt/no/python3: No such file`,
      ),
    );
    expect(r.stderr).toContain('0 worker(s) run the new spec; 1 keep the old one');
    // h1's worker is back on the spec it had; h2's was never touched.
    const after = await until('both workers running', () => {
      const s = status();
      return running(s).length === 2 ? s : undefined;
    });
    expect(after.workers.find((w) => w.host === h2.ip)?.pid).toBe(before.workers.find((w) => w.host === h2.ip)?.pid);
    expect(daskClient(after.schedulerAddress, 'print(c.submit(sum, [1, 2, 3]).result())').trim()).toBe('6');
    // status says so too, not only the apply that asked.
    expect(runCli(['status', '--name', NAME]).stdout).toMatch(
      /RECENT EVENTS[\s\S]*rolling restart stopped at .*-0: .*1 keep their old spec/,
    );
    expect(runCli(['plan', bad]).stdout).toContain(`~ host ${h1.ip}: rolling restart of 1 worker(s): remote_python`);
  });

  it('refuses a change only a new cluster can take, and makes it with --recreate', async () => {
    const a = hostFile('re-a.yaml', [h1.ip]);
    expect(runCli(['up', a, '--detach'], {}, 120_000).code).toBe(0);
    // Up again, detached as well: refused; the same file changes nothing, and says so.
    const twice = runCli(['up', a, '--detach'], {}, 60_000);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toContain(`is already running`);
    expect(twice.stderr).toContain(`(it runs ${a} as it is: nothing to apply)`);
    expect(twice.stderr).not.toContain('sshcluster plan');
    const b = writeHostsYaml(
      tmp('re-b.yaml'),
      { ...info, hosts: [s0] },
      { env, name: NAME, worker_options: { nthreads: 1 }, scheduler_options: { port: 8800 }, hosts: [s0.ip, h1.ip] },
    );
    // A changed file: refused, pointing at plan and apply for it.
    const changed = runCli(['up', b], {}, 60_000);
    expect(changed.code).toBe(1);
    expect(changed.stderr).toContain(`sshcluster plan ${b} shows what would change and apply makes it live`);
    const plan = runCli(['plan', b]);
    expect(plan.code).toBe(3);
    expect(plan.stdout).toContain('! needs a new cluster: scheduler_options.port 8786 → 8800');
    const refused = runCli(['apply', b], {}, 60_000);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('apply refuses: scheduler_options.port 8786 → 8800');
    expect(status().schedulerAddress).toBe(`tcp://${s0.ip}:8786`);
    const r = runCli(['apply', b, '--recreate'], {}, 180_000);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/recreating[\s\S]*Cluster up: 1 worker\(s\)/);
    expect(status().schedulerAddress).toBe(`tcp://${s0.ip}:8800`);
    expect(daskClient(`tcp://${s0.ip}:8800`, 'print(c.submit(sum, [1, 2, 3]).result())').trim()).toBe('6');
    expect(runCli(['plan', b]).code).toBe(0);
  });

  it("makes the scheduler's host a worker host and back without touching the scheduler (it stays, connected)", async () => {
    // Listed twice, the scheduler's host runs a worker too (as in Dask's SSHCluster).
    const both = hostFile('sched-both.yaml', [s0.ip, h1.ip]);
    const only = hostFile('sched-only.yaml', [h1.ip]);
    expect(runCli(['up', only, '--detach', '--name', NAME], {}, 120_000).code).toBe(0);
    const schedulerPid = () =>
      daskProcessesIn(s0)
        .filter((p) => p.role === 'scheduler' && !p.cmdline.includes('sshcluster-launcher'))
        .map((p) => p.pid);
    const before = schedulerPid();
    expect(before).toHaveLength(1);
    const plan = runCli(['plan', both, '--name', NAME]);
    expect(plan.stdout).toContain(`  + host ${s0.ip} (runs the scheduler): 1 worker(s)`);
    const add = runCli(['apply', both, '--name', NAME], {}, 120_000);
    expect(add.code, add.stdout + add.stderr).toBe(0);
    expect(
      running(status())
        .map((w) => w.host)
        .sort(),
    ).toEqual([s0.ip, h1.ip].sort());
    // Drained, it is "drained" once its worker is gone, though the scheduler runs on there.
    expect(runCli(['drain', s0.ip, '--name', NAME], {}, 120_000).code).toBe(0);
    await until('the scheduler host to show drained', () =>
      status().hosts.find((h) => h.name === s0.ip)?.state === 'drained' ? true : undefined,
    );
    expect(runCli(['undrain', s0.ip, '--name', NAME]).code).toBe(0);
    const back = runCli(['plan', only, '--name', NAME]);
    expect(back.stdout).toContain(
      `  - host ${s0.ip} (runs the scheduler): drain 1 worker(s) (retired through the scheduler, data moved); the host stays for the scheduler`,
    );
    const drop = runCli(['apply', only, '--name', NAME], {}, 120_000);
    expect(drop.code, drop.stdout + drop.stderr).toBe(0);
    const st = status();
    expect(running(st).map((w) => w.host)).toEqual([h1.ip]);
    expect(st.hosts.find((h) => h.name === s0.ip)?.state).toBe('up');
    expect(schedulerPid()).toEqual(before);
    expect(daskClient(st.schedulerAddress, 'print(c.submit(sum, [1, 2, 3]).result())').trim()).toBe('6');
  });

  it('drains a host (its worker moves) and undrains it; restart --rolling --hosts restarts only that host', async () => {
    const a = hostFile('drain.yaml', [
      { host: h1.ip, max_workers: 2 },
      { host: h2.ip, max_workers: 2 },
    ]);
    expect(runCli(['up', a, '--detach'], {}, 120_000).code).toBe(0);
    const r = runCli(['drain', h1.ip], {}, 180_000);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain(`drained ${h1.ip}: 1 worker(s) retired, 1 started elsewhere; 2 running`);
    const s = status();
    expect(s.hosts.find((h) => h.name === h1.ip)?.state).toBe('drained');
    expect(running(s).map((w) => w.host)).toEqual([h2.ip, h2.ip]);
    expect(daskProcessesIn(h1)).toEqual([]);
    // A host not in the cluster is a typo: exit 2, with the names there are.
    const typo = runCli(['drain', '10.0.0.250', '--name', NAME]);
    expect(typo.code, typo.stderr).toBe(2);
    expect(typo.stderr).toContain('sshcluster: drain: no worker host named 10.0.0.250 in this cluster');
    expect(typo.stderr).toContain(`hint: its worker hosts: ${h1.ip}, ${h2.ip}`);
    // A second drain, and an undrain of a host that is not drained, change nothing: exit 0, said so.
    const again = runCli(['drain', h1.ip, '--name', NAME]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain(`${NAME}: ${h1.ip} was drained already: nothing to do`);
    const notDrained = runCli(['undrain', h2.ip, '--name', NAME]);
    expect(notDrained.code, notDrained.stderr).toBe(0);
    expect(notDrained.stdout).toContain(`${NAME}: ${h2.ip} is not drained: nothing to do`);
    expect(runCli(['undrain', '10.0.0.250', '--name', NAME]).code).toBe(2);
    // h2 is full, h1 drained: fewer than asked is a failure (exit 1), said with what would make room.
    const short = runCli(['scale', '3', '--name', NAME], {}, 120_000);
    expect(short.code).toBe(1);
    expect(short.stderr).toContain(
      `sshcluster: ${NAME}: 2 of 3 worker(s) running: asked for 3 workers, only 2 can be placed: 2 slots on healthy hosts`,
    );
    expect(short.stderr).toContain('hint: more room: ');
    expect(short.stderr).not.toContain('warning:');
    expect(runCli(['undrain', h1.ip]).code).toBe(0);
    expect(runCli(['scale', '3', '--name', NAME], {}, 120_000).code).toBe(0);
    expect(running(status()).filter((w) => w.host === h1.ip).length).toBe(1);

    const before = running(status());
    const r2 = runCli(['restart', '--rolling', '--hosts', h2.ip, '--name', NAME], {}, 180_000);
    expect(r2.code, r2.stdout + r2.stderr).toBe(0);
    expect(r2.stdout).toContain('2 worker(s) restarted, 1 at a time');
    // Each batch printed as it completed, before the last line.
    const ip2 = h2.ip.replace(/\./g, '\\.');
    expect(r2.stdout).toMatch(
      new RegExp(`^restarted 1/2: ${ip2}-\\d \\(\\d+ s\\)\nrestarting ${ip2}-\\d \\(2 of 2\\)$`, 'm'),
    );
    const after = running(status());
    const pid = (list: Status['workers'], host: string) =>
      list
        .filter((w) => w.host === host)
        .map((w) => w.pid)
        .sort();
    expect(pid(after, h1.ip)).toEqual(pid(before, h1.ip));
    for (const p of pid(after, h2.ip)) expect(pid(before, h2.ip)).not.toContain(p);
    expect(after.length).toBe(3);
    // More room (max_workers) through plan and apply, as scale's hint says; nothing restarts.
    const roomier = hostFile('drain-room.yaml', [
      { host: h1.ip, max_workers: 2 },
      { host: h2.ip, max_workers: 3 },
    ]);
    expect(runCli(['plan', roomier]).stdout).toContain(
      `  ~ host ${h2.ip}: max_workers 2 → 3 (room for scale and adaptive; nothing restarts)`,
    );
    expect(runCli(['apply', roomier], {}, 120_000).code).toBe(0);
    expect(
      running(status())
        .map((w) => w.pid)
        .sort(),
    ).toEqual(after.map((w) => w.pid).sort());
    const more = runCli(['scale', '5', '--name', NAME], {}, 120_000);
    expect(more.code, more.stderr).toBe(0);
    expect(running(status()).filter((w) => w.host === h2.ip).length).toBe(3);
  });

  // Issue 33 (3): the scheduler refused to retire the last worker holding results, and
  // drain stopped it anyway: the futures went lost, gather hung, drain exited 0.
  it('drain of the last worker holding results exits 1 and keeps it running; the futures still gather; a drain once they are released retires it', async () => {
    const a = hostFile('unmovable.yaml', [h1.ip, h2.ip]);
    expect(runCli(['up', a, '--detach'], {}, 120_000).code).toBe(0);
    const [ready, go] = [tmp('unmovable-ready'), tmp('unmovable-go')];
    for (const f of [ready, go]) fs.rmSync(f, { force: true });
    // 20 results held by the client until `go` exists, then gathered.
    const work = daskClientInBackground(
      status().schedulerAddress,
      `import os\nfs = c.map(lambda x: x * 2, range(20), pure=False)\nwait(fs)\nopen(${JSON.stringify(ready)}, 'w').close()\nwhile not os.path.exists(${JSON.stringify(go)}): time.sleep(0.1)\nprint(sum(c.gather(fs)))`,
    );
    await until('the 20 results to be held', () => (fs.existsSync(ready) ? true : undefined), 120_000);
    const first = runCli(['drain', h1.ip, '--name', NAME], {}, 180_000);
    expect(first.code, first.stdout + first.stderr).toBe(0); // its results moved to h2's worker
    const last = runCli(['drain', h2.ip, '--name', NAME], {}, 180_000);
    expect(last.code, last.stdout + last.stderr).toBe(1);
    expect(last.stderr).toContain(
      `${h2.ip}-0 keeps running: the scheduler could not move 20 result(s) only it holds (no other running worker to take them)`,
    );
    expect(last.stderr).toContain(`${h2.ip} stays draining`);
    const st = status() as Status & { workers: { heldResults?: number }[] };
    expect(st.workers.find((w) => w.host === h2.ip)).toMatchObject({ state: 'held', heldResults: 20 });
    expect(st.hosts.find((h) => h.name === h2.ip)?.state).toBe('draining');
    expect(daskProcessesIn(h2).length).toBeGreaterThan(0);
    fs.writeFileSync(go, '');
    expect(Number((await work).trim())).toBe(380); // all 20, none lost
    // Released with the client: a drain again retires it now.
    const again = runCli(['drain', h2.ip, '--name', NAME], {}, 180_000);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stdout).toContain(`drained ${h2.ip}: 1 worker(s) retired`);
    expect(daskProcessesIn(h2)).toEqual([]);
  });

  // helper-26's trial: plan said "nothing to apply" for a host with no worker, and apply
  // took an adaptive: section for a cluster whose adaptive was off, and ignored it.
  it('takes a change on a host with no worker and an adaptive: section while adaptive is off; plan then matches', async () => {
    const a = hostFile('idle-a.yaml', [h1.ip, h2.ip]);
    expect(runCli(['up', a, '--detach'], {}, 120_000).code).toBe(0);
    expect(runCli(['scale', '--name', NAME, '1'], {}, 120_000).code).toBe(0);
    const idle = [h1.ip, h2.ip].find((ip) => !running(status()).some((w) => w.host === ip))!;
    const hosts = [h1.ip, h2.ip].map((ip) => (ip === idle ? { host: ip, worker_options: { nthreads: 2 } } : ip));
    const b = writeHostsYaml(
      tmp('idle-b.yaml'),
      { ...info, hosts: [s0] },
      {
        env,
        name: NAME,
        worker_options: { nthreads: 1 },
        hosts: [s0.ip, ...hosts],
        adaptive: { minimum: 1, maximum: 2 },
      },
    );
    const plan = runCli(['plan', b]);
    expect(plan.code, plan.stdout + plan.stderr).toBe(3);
    expect(plan.stdout).toContain(
      `~ host ${idle}: no worker runs there; the next ones start with worker_options.nthreads 1 → 2`,
    );
    expect(plan.stdout).toContain("~ adaptive: on, with the file's settings (it is off now)");
    const apply = runCli(['apply', b], {}, 120_000);
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    const st = JSON.parse(runCli(['status', '--name', NAME, '--json']).stdout) as {
      adaptive: { enabled: boolean; minimum: number; maximum: number } | null;
    };
    expect(st.adaptive).toMatchObject({ enabled: true, minimum: 1, maximum: 2 });
    const again = runCli(['plan', b]);
    expect([again.code, again.stdout]).toEqual([
      0,
      expect.stringContaining('matches the running cluster; nothing to apply'),
    ]);
    // The next worker there starts with the file's settings.
    expect(runCli(['scale', '--name', NAME, '2'], {}, 120_000).code).toBe(0);
    expect(running(status()).find((w) => w.host === idle)?.nthreads).toBe(2);
  });

  it('after a controller killed with kill -9 mid-apply, up converges to the new spec with no duplicates', async () => {
    const two = (h: typeof h1) => ({ host: h.ip, worker_options: { nworkers: 2 } });
    const a = hostFile('kill-a.yaml', [two(h1), two(h2)]);
    expect(runCli(['up', a, '--detach'], {}, 120_000).code).toBe(0);
    const firstStart = status().startedAt;
    const b = hostFile('kill-b.yaml', [two(h1), two(h2)], { nthreads: 2 });
    const apply = startCli(['apply', b]);
    const pid = await until('the apply to be rolling', () => {
      const st = stateFile();
      return st.pendingRoll && st.pendingRoll.length < 4 ? st.controller.pid : undefined;
    });
    process.kill(pid, 'SIGKILL');
    await apply.exited; // its controller is gone: it fails
    // plan still answers, from the state file (the apply recorded b's spec), and says it is the record, not a live cluster.
    const recorded = runCli(['plan', b]);
    expect(recorded.code).toBe(0);
    expect(recorded.stdout).toBe(
      `${NAME}: ${b} matches the cluster as last recorded; nothing to apply\n${NAME}'s controller is not running: sshcluster up ${b} --detach starts one that takes the cluster over as it runs\n`,
    );
    const again = runCli(['up', b, '--detach'], {}, 180_000);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stdout).toMatch(/re-adopted \d+ process\(es\)/);
    // The cluster it took over keeps its start (and so its uptime); the controller is new.
    expect(status().startedAt).toBe(firstStart);
    expect(stateFile().controller.startedAt > firstStart).toBe(true);
    // After its start-up (the detached parent has returned), in the controller's log.
    const log = path.join(STATE_HOME, 'sshcluster', NAME, 'controller.log');
    await until('the roll to go on', () =>
      fs.readFileSync(log, 'utf8').includes('continuing the interrupted apply: restarting') ? true : undefined,
    );
    const address = status().schedulerAddress;
    const threads = () =>
      JSON.parse(
        daskClient(address, 'print(json.dumps(sorted(w["nthreads"] for w in c.scheduler_info()["workers"].values())))'),
      ) as number[];
    await until('the roll to end', () => (stateFile().pendingRoll === undefined ? true : undefined), 120_000);
    await until('4 workers registered', () => (threads().length === 4 ? true : undefined));
    expect(threads()).toEqual([2, 2, 2, 2]);
    // One `dask worker` per worker (its launcher names it too): no duplicates.
    const workersOn = (h: typeof h1) =>
      daskProcessesIn(h).filter((p) => !p.cmdline.includes('sshcluster-launcher')).length;
    expect([h1, h2].map(workersOn)).toEqual([2, 2]);
    expect(runCli(['plan', b]).code).toBe(0);
  });

  it('down after the controller died leaves out a host no controller ever reached (a typo in the file), and still checks the others', async () => {
    const nowhere = s0.ip.replace(/\.\d+$/, '.99'); // on the bridge's subnet, no one there
    const f = hostFile('unreached.yaml', [h1.ip, nowhere]);
    const up = runCli(['up', f, '--detach'], {}, 120_000);
    expect(up.code, up.stdout + up.stderr).toBe(0);
    expect(up.stdout + up.stderr).toContain(`failed hosts: ${nowhere}`);
    const { pid } = stateFile().controller;
    process.kill(pid, 'SIGKILL');
    await until('the controller to be gone', () =>
      /^\d+ \(.*\) [^Z]/.test(readOr(`/proc/${pid}/stat`)) ? undefined : true,
    );
    const down = runCli(['down', '--name', NAME], {}, 120_000);
    expect(down.code, down.stdout + down.stderr).toBe(0);
    expect(down.stdout).toContain(`  ${nowhere}: never reached by this cluster, so nothing of it is there`);
    expect(down.stdout).toMatch(
      new RegExp(`  ${h1.ip.replace(/\./g, '\\.')}: stopped \\d+ process\\(es\\) of the cluster; clean`),
    );
    expect(daskProcessesIn(h1)).toEqual([]);
    expect(fs.existsSync(path.join(STATE_HOME, 'sshcluster', NAME, 'state.json'))).toBe(false);
  });

  it('a re-adopting up retires and clears a host an apply removed and had not left when its controller died', async () => {
    const a = hostFile('former-a.yaml', [h1.ip, h2.ip]);
    expect(runCli(['up', a, '--detach'], {}, 120_000).code).toBe(0);
    const { pid } = stateFile().controller;
    process.kill(pid, 'SIGKILL');
    await until('the controller to be gone', () =>
      /^\d+ \(.*\) [^Z]/.test(readOr(`/proc/${pid}/stat`)) ? undefined : true,
    );
    // The state file as an apply that removed h2 leaves it when its controller dies
    // while h2's worker still retires: h2 out of the spec, kept in formerHosts.
    const file = path.join(STATE_HOME, 'sshcluster', NAME, 'state.json');
    const st = JSON.parse(fs.readFileSync(file, 'utf8')) as {
      spec: { workerHosts: { name: string }[] };
      formerHosts?: unknown[];
      desiredWorkers: number;
    };
    const removed = st.spec.workerHosts.find((h) => h.name === h2.ip)!;
    st.spec.workerHosts = st.spec.workerHosts.filter((h) => h !== removed);
    st.formerHosts = [removed];
    st.desiredWorkers = 1;
    fs.writeFileSync(file, JSON.stringify(st));
    expect(daskProcessesIn(h2).length).toBeGreaterThan(0);

    const again = runCli(['up', hostFile('former-b.yaml', [h1.ip]), '--detach'], {}, 180_000);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    const log = fs.readFileSync(path.join(STATE_HOME, 'sshcluster', NAME, 'controller.log'), 'utf8');
    expect(log).toContain(`${h2.ip} left the cluster (an interrupted apply had removed it)`);
    expect(daskProcessesIn(h2)).toEqual([]);
    expect(stateFile().formerHosts).toBeUndefined();
    // Retired through the scheduler (its data moved), not only killed. The adopted
    // scheduler's lines reach the log store through its keeper: wait for the line.
    const retired = new RegExp(`Retiring worker tcp://${h2.ip.replace(/\./g, '\\.')}:`);
    await until('the scheduler to log the retirement', () =>
      retired.test(runCli(['logs', 'scheduler', '--name', NAME, '--tail', '1000']).stdout) ? true : undefined,
    );
    expect(
      status()
        .workers.filter((w) => w.state === 'running')
        .map((w) => w.host),
    ).toEqual([h1.ip]);
    // Killed again, and taken over with a file that differs (h2 back): the processes keep
    // their spec, and the up says so (the warning reaches the detached parent).
    const second = stateFile().controller.pid;
    process.kill(second, 'SIGKILL');
    await until('the controller to be gone', () =>
      /^\d+ \(.*\) [^Z]/.test(readOr(`/proc/${second}/stat`)) ? undefined : true,
    );
    const differs = runCli(['up', a, '--detach'], {}, 180_000);
    expect(differs.code, differs.stdout + differs.stderr).toBe(0);
    expect(differs.stdout + differs.stderr).toContain(
      `the host file differs from the spec the running processes have; keeping theirs (sshcluster plan ${a} shows the difference, apply makes it)`,
    );
    expect(
      status()
        .workers.filter((w) => w.state === 'running')
        .map((w) => w.host),
    ).toEqual([h1.ip]);
  });

  it("after apply gave a host another TMPDIR and the controller was killed, a re-adopting up and down clear the cluster's files under both", async () => {
    const [dirA, dirB] = [tmp('tmpdir-a'), tmp('tmpdir-b')];
    for (const d of [dirA, dirB]) fs.mkdirSync(d, { recursive: true });
    const withTmp = (dir: string) => ({ host: h1.ip, env: { TMPDIR: dir } });
    const a = hostFile('tmpdir-a.yaml', [withTmp(dirA)]);
    expect(runCli(['up', a, '--detach'], {}, 120_000).code).toBe(0);
    const filesUnder = (dir: string, id = stateFile().clusterId) =>
      fs.existsSync(path.join(dir, `sshcluster-${process.getuid!()}`, id, 'files'));
    const killController = async () => {
      const { pid } = stateFile().controller;
      process.kill(pid, 'SIGKILL');
      await until('the controller to be gone', () =>
        /^\d+ \(.*\) [^Z]/.test(readOr(`/proc/${pid}/stat`)) ? undefined : true,
      );
    };
    expect([filesUnder(dirA), filesUnder(dirB)]).toEqual([true, false]);
    const b = hostFile('tmpdir-b.yaml', [withTmp(dirB)]);
    const applied = runCli(['apply', b], {}, 180_000);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    // h1's worker was restarted under B; A's files stay until the cluster stops.
    expect([filesUnder(dirA), filesUnder(dirB)]).toEqual([true, true]);
    expect(stateFile().formerHosts?.map((h) => [h.name, h.env.TMPDIR])).toEqual([[h1.ip, dirA]]);

    // A re-adopting controller carries it on: its own stop clears A too.
    await killController();
    const again = runCli(['up', b, '--detach'], {}, 180_000);
    expect(again.stdout, again.stdout + again.stderr).toMatch(/re-adopted \d+ process\(es\)/);
    const id = stateFile().clusterId;
    const down = runCli(['down', '--name', NAME], {}, 120_000);
    expect(down.code, down.stdout + down.stderr).toBe(0);
    expect([filesUnder(dirA, id), filesUnder(dirB, id)]).toEqual([false, false]);

    // And `down` from the state file, after another apply and another kill -9.
    expect(runCli(['up', a, '--detach'], {}, 120_000).code).toBe(0);
    const id2 = stateFile().clusterId;
    expect(runCli(['apply', b], {}, 180_000).code).toBe(0);
    await killController();
    const fromState = runCli(['down', '--name', NAME], {}, 120_000);
    expect(fromState.stdout, fromState.stdout + fromState.stderr).toContain('No controller answers');
    expect(fromState.code).toBe(0);
    expect([filesUnder(dirA, id2), filesUnder(dirB, id2)]).toEqual([false, false]);
  });
});
