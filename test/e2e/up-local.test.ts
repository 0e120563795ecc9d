// The README quick start: `sshcluster up` with no host file runs a local cluster,
// without SSH, as child processes of this machine.
import { describe, expect, it } from 'vitest';
import { daskClient, runCli, startCli } from './cli-driver.js';

describe('sshcluster up (local, no host file)', () => {
  it('starts a local scheduler and workers, computes, and stops cleanly on Ctrl-C', async () => {
    const run = startCli(['up', '--python', '/usr/bin/python3']);
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
  });

  it('says how to install Dask when the interpreter has none', () => {
    const r = runCli(['up', '--python', '/bin/false']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Dask is not installed');
    expect(r.stderr).toContain('apt-get install python3-distributed');
  });
});
