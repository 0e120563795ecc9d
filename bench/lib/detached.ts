// A detached cluster on N namespace hosts for a bench to measure (rss.ts, cli.ts): the
// hosts (scheduler on the first, one 1-thread worker without nanny on each other), a
// state home of its own, `up --detach` before the body and `down` after it, and the
// hosts and state removed on every way out, a failed body or a failed `up` included.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestHosts, writeHostsYaml, type TestHosts } from '../../test/e2e/harness/netns-hosts.js';
import { BIN, ensureClean, runSync } from './hosts.js';
import { BenchAbort } from './proc.js';

export interface DetachedCluster {
  hosts: TestHosts;
  name: string;
  /** The environment every sshcluster command of the bench runs with (its own state home). */
  env: NodeJS.ProcessEnv;
  stateHome: string;
  /** What `up --detach` printed. */
  upOut: string;
}

export interface DetachedOptions {
  count: number;
  name: string;
  security?: 'tls' | 'none';
  timeoutMs: number;
  /** Wraps `up --detach` and `down` (e.g. to count the shells they open); runs them as they are by default. */
  around?: <R>(what: string, hosts: TestHosts, run: () => R) => Promise<R>;
}

/** Runs `body` against the cluster; throws BenchAbort when `up` or `down` fails. */
export async function withDetachedCluster<T>(o: DetachedOptions, body: (c: DetachedCluster) => Promise<T>): Promise<T> {
  const around = o.around ?? (async (_what, _hosts, run) => run());
  const stateHome = mkdtempSync(path.join(os.tmpdir(), `sshc-${o.name}-`));
  const env = { ...process.env, NO_COLOR: '1', XDG_STATE_HOME: stateHome };
  const sshcluster = (args: string[]) => runSync(process.execPath, [BIN, ...args], env, o.timeoutMs);
  let hosts: TestHosts | undefined;
  let upDone = false;
  try {
    hosts = await createTestHosts({ count: o.count });
    const h = hosts;
    const file = writeHostsYaml(path.join(h.dir, `${o.name}.yaml`), h, {
      name: o.name,
      security: o.security === 'none' ? 'none' : undefined,
      env: { DASK_TEMPORARY_DIRECTORY: path.join(h.dir, 'scratch') },
      worker_options: { nthreads: 1, nworkers: 1, nanny: false },
    });
    const up = await around('up --detach', h, () => sshcluster(['up', file, '--detach']));
    upDone = true;
    if (!up.ok) throw new BenchAbort(`up failed: ${up.out.slice(-1500)}`);
    const result = await body({ hosts: h, name: o.name, env, stateHome, upOut: up.out });
    upDone = false;
    const down = await around('down', h, () => sshcluster(['down', '--name', o.name]));
    if (!down.ok) throw new BenchAbort(`down failed: ${down.out.slice(-1500)}`);
    return result;
  } finally {
    if (upDone) sshcluster(['down', '--name', o.name]);
    if (hosts) {
      await ensureClean(hosts.hosts, 'down').catch((e: unknown) => console.error(String(e)));
      await hosts.teardown();
    }
    rmSync(stateHome, { recursive: true, force: true });
  }
}
