// The README quick start: `sshcluster up` with no host file runs a local cluster,
// without SSH, as child processes of this machine.
import { afterEach, describe, expect, it } from 'vitest';
import { daskClient, interruptGroup, runCli, sleep, startCli, type CliRun } from './cli-driver.js';

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
});

describe('sshcluster up (local, no host file)', () => {
  it('starts a local scheduler and workers, computes, and stops cleanly on Ctrl-C', async () => {
    const run = startCli(['up', '--python', '/usr/bin/python3']);
    const m = await run.waitFor(/export DASK_SCHEDULER_ADDRESS=(\S+)/);
    expect(m[1]).toBe('tcp://127.0.0.1:8786');
    const workers = Number(/Cluster up: (\d+) worker/.exec(run.output())![1]);
    expect(workers).toBeGreaterThanOrEqual(1);
    const out = daskClient(m[1]!, 'print(len(c.scheduler_info()["workers"]), c.submit(sum, [1, 2, 3]).result())');
    expect(out.trim()).toBe(`${workers} 6`);
    run.child.kill('SIGINT');
    const exit = await run.exited;
    expect(run.output()).toContain('verified: no process of this cluster is left on any host');
    expect(exit.code).toBe(0);
  });

  it('Ctrl-C in a terminal (SIGINT to the whole foreground group) retires workers gracefully, with no false alarms', async () => {
    // A terminal sends SIGINT to every process of its foreground group: the cluster's
    // processes must not get it, or they stop before the controller retires them.
    grouped = startCli(['up', '--no-tui', '--python', '/usr/bin/python3'], {}, { group: true });
    await grouped.waitFor(/export DASK_SCHEDULER_ADDRESS=/);
    const workers = Number(/Cluster up: (\d+) worker/.exec(grouped.output())![1]);
    expect(workers).toBeGreaterThanOrEqual(1);
    interruptGroup(grouped);
    const exit = await grouped.exited;
    const out = grouped.output();
    expect(out).not.toMatch(/exited unexpectedly|failed|unreachable/);
    // Retired through the scheduler (their data moved), each worker once.
    expect(out.match(/scheduler │ .*Retired worker tcp:/g)?.length, out.slice(-3000)).toBe(workers);
    expect(out).toContain('verified: no process of this cluster is left on any host');
    expect(exit.code).toBe(0);
  });

  it('says how to install Dask when the interpreter has none', () => {
    const r = runCli(['up', '--python', '/bin/false']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Dask is not installed');
    expect(r.stderr).toContain('apt-get install python3-distributed');
  });
});
