// The controller on real namespace hosts: detach, status, scale, supervision, a host
// cut off and back, a killed controller (cleaned up by down, or re-adopted by up), and
// two clusters side by side.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { daskClient, runCli, sleep, startCli, STATE_HOME, until } from './cli-driver.js';
import { getTestHosts } from './harness/context.js';
import { daskProcessesIn, hostClusterFilesDir, runIn, setLink, writeHostsYaml } from './harness/netns-hosts.js';
import { CONTROLLER_V8_FLAGS } from '../../src/app/commands/detach.js';

const info = getTestHosts();
const four = info.hosts.slice(0, 4);
const tmp = (name: string) => path.join(info.dir, name);
const env = { DASK_TEMPORARY_DIRECTORY: tmp('dask-scratch') };

interface Status {
  name: string;
  schedulerAddress: string;
  dashboardUrl: string;
  desiredWorkers: number;
  hosts: { name: string; state: string; lastError: string | null; workers: number }[];
  workers: {
    name: string;
    host: string;
    pid: number | null;
    state: string;
    restarts: number;
    nannyRestarts?: number;
    address: string | null;
  }[];
  events: { subject: string; text: string }[];
}

function status(name: string): Status {
  const r = runCli(['status', '--name', name, '--json']);
  if (r.code !== 0) throw new Error(`status failed (${r.code}): ${r.stderr}`);
  return JSON.parse(r.stdout) as Status;
}

const running = (s: Status) => s.workers.filter((w) => w.state === 'running');
const daskIn = (hosts: typeof info.hosts) => hosts.flatMap((h) => daskProcessesIn(h).map((p) => p.pid));

function upDetached(name: string, hosts: typeof info.hosts, extra: Record<string, unknown> = {}) {
  const file = writeHostsYaml(tmp(`${name}.yaml`), { ...info, hosts }, { env, ...extra });
  const r = runCli(['up', file, '--detach'], {}, 120_000);
  expect(r.code, r.stdout + r.stderr).toBe(0);
  expect(r.stdout).toMatch(/Controller running in the background \(pid \d+\)/);
  return r;
}

interface StateFile {
  controller: { pid: number };
  processes: { name: string; host: string; role: string; pid: number }[];
}
const readStateFile = (name: string) =>
  JSON.parse(fs.readFileSync(path.join(STATE_HOME, 'sshcluster', name, 'state.json'), 'utf8')) as StateFile;
const schedulerPid = (s: StateFile) => s.processes.find((p) => p.role === 'scheduler')?.pid;
/** Per host, the PIDs of its dask processes: equal before and after means no duplicates. */
const daskPerHost = (hosts: typeof info.hosts) =>
  hosts.map((h) =>
    daskProcessesIn(h)
      .map((p) => p.pid)
      .sort((a, b) => a - b),
  );

afterEach(() => {
  // Stop whatever a failed test left, through the same command users have.
  for (const name of fs.existsSync(path.join(STATE_HOME, 'sshcluster'))
    ? fs.readdirSync(path.join(STATE_HOME, 'sshcluster'))
    : []) {
    if (fs.existsSync(path.join(STATE_HOME, 'sshcluster', name, 'state.json')))
      runCli(['down', '--name', name], {}, 90_000);
  }
});

describe('controller', () => {
  it('up --detach → status --json → scale 1 → scale 3 → down leaves nothing', async () => {
    upDetached('ctl', four);
    const s = status('ctl');
    expect(s.schedulerAddress).toBe(`tcp://${four[0]!.ip}:8786`);
    expect(
      running(s)
        .map((w) => w.name)
        .sort(),
    ).toEqual(
      four
        .slice(1)
        .map((h) => `${h.ip}-0`)
        .sort(),
    );
    // Addresses are the scheduler's own: a client sees the same set.
    const seen = JSON.parse(daskClient(s.schedulerAddress, 'print(json.dumps(sorted(c.scheduler_info()["workers"])))'));
    expect(
      running(s)
        .map((w) => w.address)
        .sort(),
    ).toEqual(seen);
    expect(s.hosts.map((h) => h.state)).toEqual(['up', 'up', 'up', 'up']);
    // The background controller runs with the V8 flags that keep its RSS down (detach.ts).
    const argv = fs.readFileSync(`/proc/${readStateFile('ctl').controller.pid}/cmdline`, 'utf8').split('\0');
    expect(argv).toEqual(expect.arrayContaining(CONTROLLER_V8_FLAGS));

    expect(runCli(['scale', '1', '--name', 'ctl'], {}, 120_000).code).toBe(0);
    expect(running(status('ctl')).length).toBe(1);
    expect(daskClient(s.schedulerAddress, 'print(len(c.scheduler_info()["workers"]))').trim()).toBe('1');
    expect(runCli(['scale', '3', '--name', 'ctl'], {}, 120_000).code).toBe(0);
    expect(running(status('ctl')).length).toBe(3);

    const down = runCli(['down', '--name', 'ctl'], {}, 120_000);
    expect(down.code, down.stderr).toBe(0);
    expect(down.stdout).toContain('verified: no process of it is left on any host');
    expect(daskIn(four)).toEqual([]);
  });

  it('restarts a worker killed with SIGKILL, and it registers again', async () => {
    upDetached('sup', four.slice(0, 2));
    const before = running(status('sup'))[0]!;
    // The launcher's pid is the process group of the worker: kill the whole group.
    runIn(four[1]!, ['kill', '-KILL', '--', `-${before.pid}`]);
    const after = await until('the worker to be running again', () => {
      const w = status('sup').workers.find((x) => x.name === before.name);
      return w && w.state === 'running' && w.pid !== before.pid ? w : undefined;
    });
    expect(after.restarts).toBe(1);
    expect(after.address).not.toBeNull();
  });

  it('marks a host cut off as unreachable, leaves the others alone, and recovers it', async () => {
    upDetached('link', four.slice(0, 3), { connect_options: { connect_timeout: '3s' } });
    const cut = four[2]!;
    setLink(cut, 'down');
    try {
      const s = await until('the host to be unreachable', () => {
        const st = status('link');
        return st.hosts.find((h) => h.name === cut.ip)?.state === 'unreachable' ? st : undefined;
      });
      expect(s.hosts.find((h) => h.name === four[1]!.ip)?.state).toBe('up');
      expect(s.workers.find((w) => w.host === four[1]!.ip)?.state).toBe('running');
    } finally {
      setLink(cut, 'up');
    }
    const back = await until(
      'the host and its worker to recover',
      () => {
        const st = status('link');
        const ok = st.hosts.find((h) => h.name === cut.ip)?.state === 'up' && running(st).length === 2;
        return ok ? st : undefined;
      },
      120_000,
    );
    expect(
      running(back)
        .map((w) => w.host)
        .sort(),
    ).toEqual([four[1]!.ip, cut.ip].sort());
    // Up again, it carries no error: the one it had is in the events (helper-27 saw it kept).
    expect(back.hosts.find((h) => h.name === cut.ip)?.lastError).toBeNull();
    expect(back.events.map((e) => `${e.subject}: ${e.text}`)).toContain(`${cut.ip}: reconnected`);
  });

  it('after the controller is killed with SIGKILL, down still stops everything from the state file', async () => {
    upDetached('orphan', four.slice(0, 3));
    const state = JSON.parse(fs.readFileSync(path.join(STATE_HOME, 'sshcluster', 'orphan', 'state.json'), 'utf8'));
    // The scheduler's host keeps the scheduler preload in the cluster's directory there,
    // a worker's host the preload that waits for the scheduler (the hosts share /tmp),
    // which its nanny imports from there by name (so its bytecode is there too).
    const kept = hostClusterFilesDir(state.clusterId);
    expect(fs.readdirSync(kept).sort()).toEqual(['__pycache__', 'scheduler_demand.py', 'scheduler_wait.py']);
    process.kill(state.controller.pid, 'SIGKILL');
    await sleep(500);
    const st = runCli(['status', '--name', 'orphan']);
    expect(st.code).toBe(1);
    expect(st.stderr).toContain('no controller is running for cluster "orphan"');
    const down = runCli(['down', '--name', 'orphan'], {}, 120_000);
    expect(down.code, down.stderr).toBe(0);
    expect(down.stdout).toContain('stopping its processes from the state file');
    expect(daskIn(four.slice(0, 3))).toEqual([]);
    expect(fs.existsSync(kept)).toBe(false);
  });

  it('after the controller is killed with SIGKILL, up with the same file re-adopts its processes, on the same dashboard port', async () => {
    const three = four.slice(0, 3);
    // The scheduler's dashboard port taken here: the forward gets another, which a
    // re-adopting controller keeps (a browser tab on it goes on working) though 8787 is free by then.
    const holder = net.createServer();
    await new Promise<void>((r) => holder.once('error', () => r()).listen(8787, '127.0.0.1', r));
    upDetached('adopt', three);
    const before = status('adopt');
    expect(before.dashboardUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/status$/);
    expect(before.dashboardUrl).not.toContain(':8787/');
    await new Promise((r) => holder.close(r));
    const old = readStateFile('adopt');
    const daskBefore = daskPerHost(three);
    process.kill(old.controller.pid, 'SIGKILL');
    await sleep(1500);
    // Orphaned, not stopped: a detached controller's processes wait to be adopted.
    expect(daskPerHost(three)).toEqual(daskBefore);

    const again = upDetached('adopt', three);
    expect(again.stdout).toContain('re-adopted 3 process(es) from the state file, started 0');
    const after = status('adopt');
    expect(after.schedulerAddress).toBe(before.schedulerAddress);
    expect(after.dashboardUrl).toBe(before.dashboardUrl);
    const pids = (s: Status) =>
      running(s)
        .map((w) => `${w.name}=${w.pid}`)
        .sort();
    expect(pids(after)).toEqual(pids(before));
    const state = readStateFile('adopt');
    expect(state.controller.pid).not.toBe(old.controller.pid);
    expect(schedulerPid(state)).toBe(schedulerPid(old));
    expect(daskPerHost(three)).toEqual(daskBefore);
    expect(daskClient(after.schedulerAddress, 'print(sum(c.gather(c.map(lambda x: x * x, range(100)))))').trim()).toBe(
      '328350',
    );

    const down = runCli(['down', '--name', 'adopt'], {}, 120_000);
    expect(down.code, down.stderr).toBe(0);
    expect(down.stdout).toContain('verified: no process of it is left on any host');
    expect(daskIn(three)).toEqual([]);
  });

  it('re-adoption keeps the size the dead controller was keeping, not the host file size', async () => {
    const three = four.slice(0, 3);
    const file = writeHostsYaml(
      tmp('resize.yaml'),
      { ...info, hosts: three },
      { env, name: 'resize', hosts: three.map((h, i) => (i === 0 ? h.ip : { host: h.ip, max_workers: 2 })) },
    );
    expect(runCli(['up', file, '--detach'], {}, 120_000).code).toBe(0);
    expect(runCli(['scale', '4', '--name', 'resize'], {}, 120_000).code).toBe(0);
    const before = running(status('resize'))
      .map((w) => `${w.name}=${w.pid}`)
      .sort();
    expect(before.length).toBe(4);
    process.kill(readStateFile('resize').controller.pid, 'SIGKILL');
    await sleep(1500);
    const again = runCli(['up', file, '--detach'], {}, 120_000);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stdout).toContain('re-adopted 5 process(es) from the state file, started 0');
    await sleep(3000); // a few reconcile ticks: nothing may be retired
    expect(
      running(status('resize'))
        .map((w) => `${w.name}=${w.pid}`)
        .sort(),
    ).toEqual(before);
  });

  it('re-adopting after a worker died meanwhile starts only that worker; without the scheduler it starts afresh', async () => {
    const three = four.slice(0, 3);
    upDetached('readopt', three);
    // Launcher + Dask process (the launcher's argv names dask too) per host.
    const counts = daskPerHost(three).map((pids) => pids.length);
    const old = readStateFile('readopt');
    process.kill(old.controller.pid, 'SIGKILL');
    const dead = old.processes.find((p) => p.role === 'worker')!;
    runIn(
      three.find((h) => h.ip === dead.host)!,
      ['kill', '-KILL', '--', `-${dead.pid}`],
    );
    await sleep(1000);
    const again = upDetached('readopt', three);
    expect(again.stdout).toContain('re-adopted 2 process(es) from the state file, started 1');
    const s = status('readopt');
    expect(running(s).length).toBe(2);
    expect(running(s).find((w) => w.name === dead.name)?.pid).not.toBe(dead.pid);
    expect(daskPerHost(three).map((pids) => pids.length)).toEqual(counts);

    const next = readStateFile('readopt');
    process.kill(next.controller.pid, 'SIGKILL');
    runIn(three[0]!, ['kill', '-KILL', '--', `-${schedulerPid(next)}`]);
    await sleep(1000);
    const fresh = upDetached('readopt', three);
    // Workers close by themselves once their scheduler's connection breaks (Dask removed
    // worker reconnection in 2022), so how many are left to stop depends on timing.
    expect(fresh.stdout).toMatch(
      /the previous controller's scheduler is gone(; stopped \d+ process\(es\) it left)?: starting the cluster afresh/,
    );
    expect(running(status('readopt')).length).toBe(2);
    expect(daskPerHost(three).map((pids) => pids.length)).toEqual(counts);
    expect(runCli(['down', '--name', 'readopt'], {}, 120_000).code).toBe(0);
    expect(daskIn(three)).toEqual([]);
  });

  it('keeps two clusters with different names apart', async () => {
    const [a0, a1, b0, b1] = four as [(typeof four)[0], (typeof four)[0], (typeof four)[0], (typeof four)[0]];
    upDetached('alpha', [a0, a1]);
    upDetached('beta', [b0, b1]);
    expect(runCli(['list']).stdout).toMatch(/alpha\s+running[\s\S]*beta\s+running/);
    // Without --name, a command that needs one cluster says which exist.
    const ambiguous = runCli(['status']);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toContain('2 clusters: alpha, beta; say which with --name');
    const betaPids = daskIn([b0, b1]).sort();
    expect(runCli(['scale', '0', '--name', 'alpha'], {}, 120_000).code).toBe(0);
    expect(runCli(['down', '--name', 'alpha'], {}, 120_000).code).toBe(0);
    expect(daskIn([a0, a1])).toEqual([]);
    expect(daskIn([b0, b1]).sort()).toEqual(betaPids);
    expect(running(status('beta')).length).toBe(1);
  });

  it("a second cluster on the same hosts and ports fails: the first one's scheduler is not taken for its own", async () => {
    const two = four.slice(0, 2);
    upDetached('first', two);
    const pids = daskIn(two).sort();
    // Same hosts, same ports, another name: its workers would have the first's names.
    const file = writeHostsYaml(tmp('second.yaml'), { ...info, hosts: two }, { env, name: 'second' });
    const r = runCli(['up', '--no-tui', file], {}, 120_000);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stdout + r.stderr).not.toContain('Cluster up');
    expect(r.stderr).toMatch(/scheduler on \S+ failed/);
    expect(daskIn(two).sort()).toEqual(pids);
    expect(running(status('first')).length).toBe(1);
    expect(runCli(['down', '--name', 'first'], {}, 120_000).code).toBe(0);
  });

  it('attach --no-tui starts with the status and the newest recorded lines, then follows; Ctrl-C detaches', async () => {
    upDetached('att', four.slice(0, 2));
    const run = startCli(['attach', '--no-tui', '--name', 'att']);
    // Lines from before attach (the worker registered during up) arrive first.
    await run.waitFor(/cluster att[\s\S]*-0 │ .*Registered to/);
    expect(runCli(['scale', '0', '--name', 'att'], {}, 120_000).code).toBe(0);
    await run.waitFor(/-0 stopped|exited/);
    run.child.kill('SIGINT');
    expect((await run.exited).code).toBe(0);
    expect(status('att').desiredWorkers).toBe(0); // its controller still answers: detaching left it running
  });

  it("says when a task kills its worker: the nanny's restarts in the worker's figures and the events", async () => {
    const two = four.slice(0, 3);
    upDetached('killer', two);
    const address = status('killer').schedulerAddress;
    const out = daskClient(
      address,
      [
        'import os',
        'from distributed import KilledWorker',
        'try:',
        '    c.submit(os._exit, 1, pure=False).result(timeout=120)',
        'except KilledWorker:',
        '    print("KilledWorker")',
      ].join('\n'),
      150_000,
    );
    expect(out.trim()).toBe('KilledWorker');
    const st = await until('the restarts in status', () => {
      const s = status('killer');
      return s.workers.reduce((n, w) => n + (w.nannyRestarts ?? 0), 0) >= 3 ? s : undefined;
    });
    expect(st.events.some((e) => /exited with status 1; its nanny restarted it/.test(e.text))).toBe(true);
    expect(runCli(['status', '--name', 'killer']).stdout).toMatch(/RECENT EVENTS[\s\S]*its nanny restarted it/);
  });

  it('places new workers away from a host whose worker keeps failing', async () => {
    const [s0, bad, good] = four as [(typeof four)[0], (typeof four)[0], (typeof four)[0]];
    const file = writeHostsYaml(
      tmp('place.yaml'),
      { ...info, hosts: [s0, bad, good] },
      {
        env,
        hosts: [
          s0.ip,
          { host: bad.ip, remote_python: '/opt/no/python3', max_workers: 2 },
          { host: good.ip, max_workers: 2 },
        ],
      },
    );
    const r = runCli(['up', file, '--detach'], {}, 120_000);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`\\[${bad.ip.replace(/\./g, '\\.')}\\] failed: .*python not found`));
    // Without the back-off rule the tie (one worker each) would go to the first host.
    expect(runCli(['scale', '3', '--name', 'place', '--timeout', '20s'], {}, 60_000).code).toBe(1);
    const st = status('place');
    expect(st.workers.map((w) => w.name).sort()).toEqual([`${bad.ip}-0`, `${good.ip}-0`, `${good.ip}-1`].sort());
    expect(running(st).map((w) => w.host)).toEqual([good.ip, good.ip]);
  });
});
