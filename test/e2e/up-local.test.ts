// The README quick start: `sshcluster up` with no host file runs a local cluster,
// without SSH, as child processes of this machine.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { daskClient, interruptGroup, runCli, sleep, startCli, STATE_HOME, type CliRun } from './cli-driver.js';
import { freePort } from './harness/sshd.js';

const PY = ['--python', '/usr/bin/python3'];

const stateFile = path.join(STATE_HOME, 'sshcluster', 'local', 'state.json');

interface Status {
  schedulerAddress: string;
  workers: { name: string; pid: number | null; state: string }[];
  adaptive: { enabled: boolean; minimum: number; maximum: number | null; waitCount: number } | null;
}

function status(): Status {
  const r = runCli(['status', '--json']);
  if (r.code !== 0) throw new Error(`status failed (${r.code}): ${r.stderr}`);
  return JSON.parse(r.stdout) as Status;
}
const running = (s: Status) =>
  s.workers
    .filter((w) => w.state === 'running')
    .map((w) => `${w.name}=${w.pid}`)
    .sort();

let grouped: CliRun | undefined;
afterEach(async () => {
  // A failed test must not leave its cluster running: the group is ours alone.
  if (grouped && grouped.child.exitCode === null && grouped.child.signalCode === null) {
    interruptGroup(grouped);
    await Promise.race([grouped.exited, sleep(30_000)]);
    try {
      process.kill(-grouped.child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  grouped = undefined;
  if (fs.existsSync(stateFile)) runCli(['down', '--name', 'local'], {}, 90_000);
});

describe('sshcluster up (local, no host file)', () => {
  it('starts a local scheduler and workers, computes, and stops cleanly on Ctrl-C', async () => {
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'sshc-scratch-'));
    onTestFinished(() => fs.rmSync(scratch, { recursive: true, force: true }));
    const run = startCli(['up', '--python', '/usr/bin/python3'], { DASK_TEMPORARY_DIRECTORY: scratch });
    const m = await run.waitFor(/ {2}scheduler: (\S+)\n.*\n {2}eval "\$\(sshcluster env/);
    expect(m[1]).toBe('tcp://127.0.0.1:8786');
    const workers = Number(/Cluster up: (\d+) worker/.exec(run.output())![1]);
    expect(workers).toBeGreaterThanOrEqual(1);
    const out = daskClient(m[1]!, 'print(len(c.scheduler_info()["workers"]), c.submit(sum, [1, 2, 3]).result())');
    expect(out.trim()).toBe(`${workers} 6`);
    run.child.kill('SIGINT');
    const exit = await run.exited;
    expect(run.output()).toContain('verified: no process of this cluster is left on any host');
    expect(exit.code).toBe(0);
    // Dask's scratch space holds nothing of ours: the nannies import our preload by name.
    const left = fs
      .readdirSync(scratch, { recursive: true, encoding: 'utf8' })
      .filter((f) => /\.py$|__pycache__/.test(f));
    expect(left).toEqual([]);
  });

  it('Ctrl-C in a terminal (SIGINT to the whole foreground group) retires workers gracefully, with no false alarms', async () => {
    // A terminal sends SIGINT to every process of its foreground group: the cluster's
    // processes must not get it, or they stop before the controller retires them.
    grouped = startCli(['up', '--no-tui', '--python', '/usr/bin/python3'], {}, { group: true });
    await grouped.waitFor(/ {2}eval "\$\(sshcluster env/);
    const workers = Number(/Cluster up: (\d+) worker/.exec(grouped.output())![1]);
    expect(workers).toBeGreaterThanOrEqual(1);
    interruptGroup(grouped);
    const exit = await grouped.exited;
    const out = grouped.output();
    // sshcluster's own lines: the processes' (`name │ line`) may hold Dask's own words, e.g.
    // a nanny stopped while it finishes its start logs "Nanny failed to start" (CI J).
    const ours = out
      .split('\n')
      .filter((l) => !l.includes(' │ '))
      .join('\n');
    expect(ours).not.toMatch(/exited unexpectedly|failed|unreachable/);
    // Retired through the scheduler (their data moved), each worker once.
    expect(out.match(/scheduler │ .*Retired worker tcp:/g)?.length, out.slice(-3000)).toBe(workers);
    expect(out).toContain('verified: no process of this cluster is left on any host');
    expect(exit.code).toBe(0);
  });

  it('a detached local cluster whose controller was killed is re-adopted by up: same scheduler and workers, adaptive settings kept', async () => {
    const first = runCli(['up', '--detach', '--adapt', '--min', '1', '--max', '2', ...PY], {}, 120_000);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    // Set with `adapt` on the running cluster, not only with up's flags.
    const adapt = runCli(['adapt', '--min', '1', '--max', '2', '--wait-count', '7']);
    expect(adapt.code, adapt.stderr).toBe(0);
    const before = status();
    expect(running(before).length).toBe(1);
    const old = JSON.parse(fs.readFileSync(stateFile, 'utf8')) as { controller: { pid: number } };
    process.kill(old.controller.pid, 'SIGKILL');
    await sleep(1000);
    expect(daskClient(before.schedulerAddress, 'print(len(c.scheduler_info()["workers"]))').trim()).toBe('1');
    const st = runCli(['status']);
    expect(st.code).toBe(1);
    expect(st.stderr).toMatch(/sshcluster up .*--detach/);
    expect(st.stderr).toContain('sshcluster down --name local');

    const again = runCli(['up', '--detach', ...PY], {}, 120_000);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stdout).not.toContain('scheduler is gone');
    expect(again.stdout).toContain('re-adopted 2 process(es) from the state file, started 0');
    const after = status();
    expect(after.schedulerAddress).toBe(before.schedulerAddress);
    expect(running(after)).toEqual(running(before));
    expect(after.adaptive).toMatchObject({ enabled: true, minimum: 1, maximum: 2, waitCount: 7 });
    const down = runCli(['down'], {}, 120_000);
    expect(down.code, down.stderr).toBe(0);
    expect(down.stdout).toContain('verified: no process of it is left on any host');
  });

  it("--metrics serves the controller's figures to Prometheus; a taken port fails up before anything starts", async () => {
    const port = await freePort();
    const first = runCli(['up', '--detach', '--metrics', `:${port}`, ...PY], {}, 120_000);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    const workers = running(status()).length;
    const res = await fetch(`http://127.0.0.1:${port}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain; version=0.0.4');
    const text = await res.text();
    expect(text).toContain(`sshcluster_workers{cluster="local",state="running"} ${workers}`);
    expect(text).toContain(`sshcluster_workers_desired{cluster="local"} ${workers}`);
    expect((await fetch(`http://127.0.0.1:${port}/`)).status).toBe(404);
    // The port is the running controller's: a second cluster asking for it stops at once.
    const clash = runCli(['up', '--no-tui', '--name', 'clash', '--metrics', `127.0.0.1:${port}`, ...PY], {}, 60_000);
    expect(clash.code).toBe(1);
    expect(clash.stderr).toContain(`--metrics 127.0.0.1:${port}: the port is in use`);
    expect(fs.existsSync(path.join(STATE_HOME, 'sshcluster', 'clash', 'state.json'))).toBe(false);
    expect(runCli(['down'], {}, 120_000).code).toBe(0);
    await expect(fetch(`http://127.0.0.1:${port}/metrics`)).rejects.toThrow();
  });

  it('the background controller may open as many files as the hard limit allows, though started under a soft limit of 256', () => {
    // Node raises its soft limit to the hard one at start: at 2 fds per host, a shell's
    // usual 1,024 would otherwise stop a controller at about 500 hosts (docs/scale.md).
    const soft = 256;
    const up = runCli(['up', '--detach', ...PY], {}, 120_000, ['sh', '-c', `ulimit -Sn ${soft} && exec "$0" "$@"`]);
    expect(up.code, up.stdout + up.stderr).toBe(0);
    const pid = (JSON.parse(fs.readFileSync(stateFile, 'utf8')) as { controller: { pid: number } }).controller.pid;
    const limits = fs.readFileSync(`/proc/${pid}/limits`, 'utf8');
    const [, cur, max] = /^Max open files\s+(\S+)\s+(\S+)/m.exec(limits) ?? [];
    expect(max === 'unlimited' || Number(max) > soft, `hard limit ${max}: this test needs one above ${soft}`).toBe(
      true,
    );
    expect(cur).toBe(max);
    expect(runCli(['down'], {}, 120_000).code).toBe(0);
  });

  it('logs are those of the current run, start-up included; --previous reads the run before', async () => {
    grouped = startCli(['up', '--no-tui', ...PY], {}, { group: true });
    await grouped.waitFor(/ {2}eval "\$\(sshcluster env/);
    const workers = status().workers.map((w) => w.name);
    expect(workers.length).toBeGreaterThanOrEqual(2); // a 2-core machine gets 2 one-thread workers
    // Past its room: exit 1, with a hint a local cluster can follow (it has no host file to apply).
    const past = runCli(['scale', String(workers.length + 2)], {}, 120_000);
    expect(past.code).toBe(1);
    expect(past.stderr).toContain('hint: a local cluster has the room it started with (up --nworkers');
    expect(past.stderr).toContain('then sshcluster up --nworkers N');
    expect(runCli(['scale', '1'], {}, 120_000).code).toBe(0);
    for (const w of workers) {
      // The one kept logged nothing since start-up: its start-up lines must be there.
      const r = runCli(['logs', w, '--tail', '1000']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^${w} │ .*Start worker at:`, 'm'));
      // Our preloads' start-up lines are not among them (issue 34: ~9 a worker start).
      expect(r.stdout).not.toMatch(/Creating preload: scheduler_wait|Import preload module: scheduler_wait/);
    }
    interruptGroup(grouped);
    expect((await grouped.exited).code).toBe(0);

    const again = runCli(['up', '--detach', ...PY], {}, 120_000);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    const now = runCli(['logs', 'scheduler', '--tail', '1000']);
    expect(now.code, now.stderr).toBe(0);
    expect(now.stdout.match(/Scheduler at:/g)?.length).toBe(1);
    expect(now.stdout).not.toContain('End scheduler');
    const before = runCli(['logs', 'scheduler', '--previous', '--tail', '1000']);
    expect(before.code, before.stderr).toBe(0);
    expect(before.stdout.match(/Scheduler at:/g)?.length).toBe(1);
    expect(before.stdout).toContain('End scheduler');
    // A name that matches nothing recorded is a typo: exit 2, and the names there are.
    const typo = runCli(['logs', 'schedular']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('no recorded logs for "schedular"');
    expect(typo.stderr).toMatch(/hint: recorded: .*scheduler/);
  });

  it('fails (exit 1, the reason said, nothing left) when every process exits at once with status 0', () => {
    // Dask imports (the check before start-up), but its scheduler and workers end at once:
    // with nothing of the cluster left to wait on, up must still report the failure.
    const wrapper = path.join(STATE_HOME, 'python-exits-0');
    fs.writeFileSync(
      wrapper,
      '#!/bin/sh\ncase "$*" in *distributed.cli*) exit 0;; esac\nexec /usr/bin/python3 "$@"\n',
      { mode: 0o755 },
    );
    const r = runCli(['up', '--no-tui', '--name', 'exits0', '--python', wrapper], {}, 120_000);
    expect(r.code, r.stdout).toBe(1);
    expect(r.stderr).toContain('sshcluster: scheduler on localhost failed: exited with exit code 0');
    expect(r.stdout).toContain('verified: no process of this cluster is left on any host');
    expect(fs.existsSync(path.join(STATE_HOME, 'sshcluster', 'exits0', 'state.json'))).toBe(false);
    expect(runCli(['list']).stdout).not.toContain('exits0');
    // Nothing was recorded: nothing is left to make the name look like a cluster's.
    expect(fs.existsSync(path.join(STATE_HOME, 'sshcluster', 'exits0'))).toBe(false);
    const logs = runCli(['logs', '--name', 'exits0']);
    expect(logs.code, logs.stderr).toBe(2);
    expect(logs.stderr).toContain('sshcluster: no cluster named "exits0" on this machine');
    // The same from a background controller: its controller.log goes too (its end was shown).
    const detached = runCli(['up', '--detach', '--name', 'exits0', '--python', wrapper], {}, 120_000);
    expect(detached.code, detached.stdout).toBe(1);
    expect(detached.stderr).toContain('scheduler on localhost failed: exited with exit code 0');
    expect(fs.existsSync(path.join(STATE_HOME, 'sshcluster', 'exits0'))).toBe(false);
  });

  it("a scheduler that fails with output: up exits 1 and logs --name shows that output (the failure's run is kept)", () => {
    const wrapper = path.join(STATE_HOME, 'python-scheduler-fails');
    fs.writeFileSync(
      wrapper,
      '#!/bin/sh\ncase "$*" in *distributed.cli.dask_scheduler*) echo "planted: the scheduler cannot start" >&2; exit 3;; esac\nexec /usr/bin/python3 "$@"\n',
      { mode: 0o755 },
    );
    const r = runCli(['up', '--no-tui', '--name', 'schedfails', '--python', wrapper], {}, 120_000);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stderr).toContain('scheduler on localhost failed');
    // Not running, nor left as if it were: stopped, its run kept for logs.
    expect(runCli(['list']).stdout).toMatch(/^schedfails +stopped +-$/m);
    const logs = runCli(['logs', '--name', 'schedfails']);
    expect(logs.code, logs.stderr).toBe(0);
    expect(logs.stdout).toContain('scheduler │ planted: the scheduler cannot start');
  });

  it('says how to install Dask when the interpreter has none (exit 2: the --python given is bad input)', () => {
    const r = runCli(['up', '--python', '/bin/false']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Dask is not installed for --python /bin/false: ');
    expect(r.stderr).toContain('apt-get install python3-distributed');
  });
});
