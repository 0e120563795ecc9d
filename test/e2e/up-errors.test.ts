// Bad input and hard host conditions against the real namespace hosts.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { daskClient, runCli, startCli, STATE_HOME } from './cli-driver.js';
import { getTestHosts } from './harness/context.js';
import { daskProcessesIn, writeHostsYaml } from './harness/netns-hosts.js';

const info = getTestHosts();
const tmp = (name: string) => path.join(info.dir, name);
const env = { DASK_TEMPORARY_DIRECTORY: tmp('dask-scratch') };

describe('sshcluster up: refusals and limits', () => {
  it('refuses a bad host file with exit 2, file:line:col and a hint, before connecting anywhere', () => {
    const file = tmp('typo.yaml');
    fs.writeFileSync(
      file,
      `hosts:\n  - ${info.hosts[0]!.ip}\n  - ${info.hosts[1]!.ip}\nworker_option:\n  nthreads: 2\n`,
    );
    const r = runCli(['up', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${file}:4:1 worker_option:`);
    expect(r.stderr).toContain('did you mean "worker_options"?');
    expect(r.stdout).not.toContain('connecting');
    expect(info.hosts.flatMap((h) => daskProcessesIn(h))).toEqual([]);
  });

  it('refuses a wrong type with the key path and what was expected', () => {
    const file = tmp('type.yaml');
    fs.writeFileSync(file, `hosts: [a, b]\nscheduler_options:\n  port: eighty\n`);
    const r = runCli(['up', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      new RegExp(`${file.replace(/[.]/g, '\\.')}:3:9 scheduler_options\\.port: expected .*number`),
    );
  });

  it('reports a missing python on a host with the reason and keeps the others', async () => {
    const [s, w1, w2] = info.hosts as [(typeof info.hosts)[0], (typeof info.hosts)[0], (typeof info.hosts)[0]];
    const file = writeHostsYaml(
      tmp('nopython.yaml'),
      { ...info, hosts: [s, w1, w2] },
      {
        env,
        hosts: [s.ip, w1.ip, { host: w2.ip, remote_python: '/opt/no/python3' }],
      },
    );
    const run = startCli(['up', file]);
    await run.waitFor(/ {2}eval "\$\(sshcluster env/);
    expect(run.output()).toMatch(
      new RegExp(`\\[${w2.ip.replace(/\./g, '\\.')}\\] failed: .*python not found: remote_python "/opt/no/python3"`),
    );
    expect(run.output()).toMatch(/Cluster up: 1 worker\(s\), failed hosts: /);
    // status says why that host has no worker, not only that it is connected.
    const st = JSON.parse(runCli(['status', '--json']).stdout) as {
      hosts: { name: string; lastError: string | null }[];
    };
    expect(st.hosts.find((h) => h.name === w2.ip)?.lastError).toMatch(
      /python not found: remote_python "\/opt\/no\/python3"/,
    );
    run.child.kill('SIGINT');
    expect((await run.exited).code).toBe(0);
  });

  it('fails with exit 1 under --require-all when a host fails, leaving nothing running', async () => {
    const [s, w1] = info.hosts as [(typeof info.hosts)[0], (typeof info.hosts)[0]];
    const file = writeHostsYaml(
      tmp('requireall.yaml'),
      { ...info, hosts: [s, w1] },
      {
        env,
        connect_options: { connect_timeout: '2s' },
        hosts: [s.ip, w1.ip, w1.ip.replace(/\.\d+$/, '.251')],
      },
    );
    const r = runCli(['up', file, '--require-all'], {}, 90_000);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('--require-all: 1 host(s) failed');
    expect(r.stdout).toContain('verified: no process of this cluster is left on any host');
    expect(info.hosts.flatMap((h) => daskProcessesIn(h))).toEqual([]);
  });

  it('where every worker host fails is a failed up (exit 1), foreground and --detach, leaving nothing running; adaptive from 0 is not', async () => {
    const [s, w1, w2] = info.hosts as [(typeof info.hosts)[0], (typeof info.hosts)[0], (typeof info.hosts)[0]];
    const bad = { remote_python: '/opt/no/python3' };
    const file = writeHostsYaml(
      tmp('noworker.yaml'),
      { ...info, hosts: [s, w1, w2] },
      {
        env,
        name: 'noworker',
        hosts: [s.ip, { host: w1.ip, ...bad }, { host: w2.ip, ...bad }],
      },
    );
    for (const mode of [['--no-tui'], ['--detach']]) {
      const r = runCli(['up', ...mode, file], {}, 120_000);
      expect(r.code, `${mode}: ${r.stdout}${r.stderr}`).toBe(1);
      expect(r.stdout).not.toContain('Cluster up:');
      expect(r.stderr).toContain('no worker started (2 wanted); failed hosts:');
      expect(r.stderr).toContain(`hint: sshcluster check ${file} says what each host lacks`);
      expect(r.stderr).toMatch(new RegExp(`${w1.ip.replace(/\./g, '\\.')}: .*python not found`));
      // Its logs stay readable (logs --name noworker); nothing of it runs.
      expect(runCli(['list']).stdout).toMatch(/noworker +stopped/);
      expect(info.hosts.flatMap((h) => daskProcessesIn(h))).toEqual([]);
    }
    // Adaptive from 0 wants no worker at the start: up, with 0 workers.
    const run = startCli(['up', '--no-tui', '--adapt', '--min', '0', '--max', '2', file]);
    await run.waitFor(/Cluster up: 0 worker\(s\)/);
    run.child.kill('SIGINT');
    expect((await run.exited).code).toBe(0);
  });

  it('whose only host is unreachable fails (exit 1) and leaves nothing: logs --name then says there is no such cluster (exit 2)', () => {
    const gone = info.hosts[0]!.ip.replace(/\.\d+$/, '.251');
    const file = writeHostsYaml(tmp('unreachable.yaml'), info, {
      env,
      name: 'unreach',
      security: undefined,
      connect_options: { connect_timeout: '2s' },
      hosts: [gone, gone],
    });
    const r = runCli(['up', '--no-tui', file], {}, 90_000);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stderr).toContain(`scheduler host ${gone} failed`);
    expect(fs.existsSync(path.join(STATE_HOME, 'sshcluster', 'unreach'))).toBe(false);
    expect(runCli(['list']).stdout).not.toContain('unreach');
    const logs = runCli(['logs', '--name', 'unreach']);
    expect(logs.code, logs.stderr).toBe(2);
    expect(logs.stderr).toContain('sshcluster: no cluster named "unreach" on this machine');
  });

  it('runs 12 workers on one host, more channels than sshd MaxSessions (10) allows on one connection, and stops them without a listener warning', async () => {
    const [s, w1] = info.hosts as [(typeof info.hosts)[0], (typeof info.hosts)[0]];
    const file = writeHostsYaml(
      tmp('many.yaml'),
      { ...info, hosts: [s, w1] },
      {
        env,
        worker_options: { nworkers: 12, nthreads: 1, nanny: false },
      },
    );
    const run = startCli(['up', file]);
    const m = await run.waitFor(/ {2}scheduler: (\S+)\n.*\n {2}eval "\$\(sshcluster env/, 170_000);
    expect(run.output()).toMatch(/Cluster up: 12 worker\(s\)/);
    expect(daskClient(m[1]!, 'print(len(c.scheduler_info()["workers"]))').trim()).toBe('12');
    run.child.kill('SIGINT');
    expect((await run.exited).code).toBe(0);
    expect(daskProcessesIn(w1)).toEqual([]);
    // Every process being stopped waits on the cluster's stop signals at once: 13 waits
    // are not a leak, and Node must not tell the user they might be.
    expect(run.output()).toContain('verified: no process of this cluster is left on any host');
    expect(run.output()).not.toContain('MaxListenersExceededWarning');
  });
});
