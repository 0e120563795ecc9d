// The Python package against a real cluster that `up --detach` starts from this build:
// python/tests/smoke_attach.py on this project's Dask (2022.12, and 2024.12 from the
// trixie root), on a TLS cluster of namespace hosts. The pytest suite (local clusters)
// is python-pytest.test.ts, on both lines too.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, STATE_HOME } from './cli-driver.js';
import { getTestHosts } from './harness/context.js';
import { writeHostsYaml } from './harness/netns-hosts.js';

const REPO = path.resolve(import.meta.dirname, '../..');
const info = getTestHosts();
const tmp = (name: string) => path.join(info.dir, name);

afterEach(() => {
  for (const name of ['pyhandle', 'pyscale'])
    if (fs.existsSync(path.join(STATE_HOME, 'sshcluster', name, 'state.json')))
      runCli(['down', '--name', name], {}, 120_000);
});

/**
 * Runs one of python/tests' scripts against `cluster` with the package beside it, both
 * copied under /tmp (all the trixie root sees); fails the test unless it exits 0.
 */
function runPackageScript(script: string, cluster: string): string {
  const pkg = tmp('python-pkg');
  fs.cpSync(path.join(REPO, 'python', 'sshcluster'), path.join(pkg, 'sshcluster'), { recursive: true });
  fs.copyFileSync(path.join(REPO, 'python', 'tests', script), path.join(pkg, script));
  const r = spawnSync(info.python, ['-W', 'ignore', path.join(pkg, script), cluster], {
    encoding: 'utf8',
    timeout: 300_000,
    env: { ...process.env, XDG_STATE_HOME: STATE_HOME, PYTHONPATH: pkg },
  });
  expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
  return r.stdout;
}

describe('python package', () => {
  it(`attaches to a TLS cluster of namespace hosts on Dask ${info.dask}`, () => {
    const file = writeHostsYaml(
      tmp('pyhandle.yaml'),
      { ...info, hosts: info.hosts.slice(0, 3) },
      {
        name: 'pyhandle',
        security: undefined,
        env: { DASK_TEMPORARY_DIRECTORY: tmp('dask-scratch-py') },
      },
    );
    const up = runCli(['up', file, '--detach'], {}, 180_000);
    expect(up.code, up.stdout + up.stderr).toBe(0);
    const stdout = runPackageScript('smoke_attach.py', 'pyhandle');
    expect(stdout).toContain(`distributed ${info.daskVersion}`);
    expect(stdout).toContain('tls: plain Client(address) through sshcluster.security_loader ok');
    expect(stdout).toContain('tls: plain Client(address) after import sshcluster ok');
    expect(stdout).toContain('SMOKE OK');
    console.log(stdout.split('\n').find((l) => l.startsWith('attach ')));
  }, 600_000);

  it(`scale(cores=, memory=) counts with the smallest worker of hosts that differ, on Dask ${info.dask}`, () => {
    const [sched, big, small] = info.hosts;
    const at = (h: typeof sched) =>
      h!.port === 22 ? { host: h!.ip } : { host: h!.ip, connect_options: { port: h!.port } };
    const file = writeHostsYaml(tmp('pyscale.yaml'), info, {
      name: 'pyscale',
      env: { DASK_TEMPORARY_DIRECTORY: tmp('dask-scratch-pyscale') },
      hosts: [
        at(sched),
        { ...at(big), worker_options: { nthreads: 2, memory_limit: '64 GiB' }, max_workers: 3 },
        { ...at(small), worker_options: { nthreads: 1, memory_limit: 'auto' }, max_workers: 3 },
      ],
    });
    const up = runCli(['up', file, '--detach'], {}, 180_000);
    expect(up.code, up.stdout + up.stderr).toBe(0);
    const stdout = runPackageScript('smoke_scale.py', 'pyscale');
    expect(stdout).toContain('SCALE OK');
    console.log(stdout.split('\n').find((l) => l.startsWith('memory limits')));
  }, 600_000);
});
