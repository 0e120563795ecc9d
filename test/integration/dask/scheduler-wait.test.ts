// The preload that holds a worker's registration until its scheduler listens
// (src/dask/remote/preload/scheduler_wait.py), with a REAL Dask nanny and scheduler
// (distributed under /usr/bin/python3). Whether Dask's own connect had to retry is read
// from its debug log ("Could not connect to …, waiting for … before retrying"), so
// nothing here depends on how fast the machine is. SSHCLUSTER_TEST_PYTHON=<interpreter>
// runs it under another Dask (e.g. the e2e harness's Debian trixie wrapper, which sees
// only /tmp: the files are copied there).
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { SCHEDULER_WAIT_PATH, schedulerWaitArgv } from '../../../src/dask/scheduler-wait.js';
import { makeClusterCerts } from '../../../src/tls/cert-authority.js';
import { writeCerts } from '../../../src/tls/cert-store.js';
// The e2e harness's: a free port on a loopback address.
import { freePort } from '../../e2e/harness/sshd.js';

const PYTHON = process.env['SSHCLUSTER_TEST_PYTHON'] || '/usr/bin/python3';
const dir = mkdtempSync('/tmp/sshcluster-wait-');
const preload = join(dir, 'scheduler_wait.py');
copyFileSync(SCHEDULER_WAIT_PATH, preload);
mkdirSync(join(dir, 'config'));
writeFileSync(
  join(dir, 'config', 'logging.yaml'),
  'logging:\n  distributed: info\n  distributed.comm.core: debug\n  distributed.sshcluster.wait: debug\n',
);
const RETRY = /Could not connect to \S+, waiting for/;

interface Proc {
  child: ChildProcessWithoutNullStreams;
  log: () => string;
  /** Resolves once the log matches `re`; rejects if the process exits first. */
  waitFor: (re: RegExp) => Promise<void>;
  exited: Promise<number | null>;
}

const started: Proc[] = [];

function dask(args: string[], env: Record<string, string> = {}): Proc {
  const child = spawn(PYTHON, ['-m', ...args], {
    detached: true, // its own group: the nanny's worker process goes with it
    env: {
      PATH: '/usr/sbin:/usr/bin:/sbin:/bin',
      HOME: dir,
      PYTHONDONTWRITEBYTECODE: '1',
      DASK_CONFIG: join(dir, 'config'),
      DASK_TEMPORARY_DIRECTORY: dir,
      ...env,
    },
  });
  let text = '';
  const waiters = new Set<() => void>();
  const onData = (c: Buffer) => {
    text += c.toString();
    for (const w of waiters) w();
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const waitFor = (re: RegExp) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!re.test(text)) return;
        waiters.delete(check);
        resolve();
      };
      waiters.add(check);
      check();
      void exited.then((code) => reject(new Error(`${args[0]} exited ${code} before ${re}:\n${text.slice(-3000)}`)));
    });
  const p = { child, log: () => text, waitFor, exited };
  started.push(p);
  return p;
}

/** A `dask worker` with a nanny (or without: `withNanny` false). */
const nanny = (port: number, withPreload: boolean, env?: Record<string, string>, withNanny = true) =>
  dask(
    [
      'distributed.cli.dask_worker',
      `tcp://127.0.0.1:${port}`,
      '--nthreads',
      '1',
      '--no-dashboard',
      ...(withNanny ? [] : ['--no-nanny']),
      ...(withPreload ? schedulerWaitArgv(preload, withNanny) : []),
    ],
    env,
  );
const scheduler = (port: number, extra: string[] = []) =>
  dask(['distributed.cli.dask_scheduler', '--host', '127.0.0.1', '--port', String(port), '--no-dashboard', ...extra]);
/** Dask's TLS options with the certificates of `cluster` (one CA each) for `role`. */
const tlsArgs = (cluster: string, role: 'scheduler' | 'worker') => [
  '--tls-ca-file',
  join(dir, cluster, 'ca.pem'),
  '--tls-cert',
  join(dir, cluster, `${role}.pem`),
  '--tls-key',
  join(dir, cluster, `${role}-key.pem`),
];

afterEach(async () => {
  for (const p of started.splice(0)) {
    if (p.child.exitCode !== null || p.child.signalCode !== null) continue;
    process.kill(-p.child.pid!, 'SIGKILL');
    await p.exited;
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the scheduler-wait preload', () => {
  it("without it, a nanny ready before its scheduler registers through Dask's retry backoff (the premise)", async () => {
    const port = await freePort();
    const n = nanny(port, false);
    await n.waitFor(RETRY); // refused at least once: the scheduler is not there yet
    const s = scheduler(port);
    await s.waitFor(/Register worker/);
    expect(n.log()).toMatch(RETRY);
  }, 60_000);

  it.each([
    ['the nanny', true],
    ['a worker without a nanny', false],
  ])(
    'with it, %s polls until the scheduler listens and then registers at the first attempt',
    async (_, withNanny) => {
      const port = await freePort();
      const n = nanny(port, true, {}, withNanny);
      await n.waitFor(/Run preload setup: \S*scheduler_wait\.py/);
      const s = scheduler(port);
      await s.waitFor(/Register worker/);
      // A numeric address is probed with direct connects (cheap when refused).
      await n.waitFor(/scheduler tcp:\/\/127\.0\.0\.1:\d+ accepted after [\d.]+ s \(\d+ probes, direct connects\)/);
      expect(n.log()).not.toMatch(RETRY);
      // Its probes are whole handshakes: the scheduler logs nothing about them.
      expect(s.log()).not.toMatch(/closed before handshake/);
    },
    60_000,
  );

  it('over TLS it probes with direct connects too, each a whole TLS and Dask handshake the scheduler logs nothing about', async () => {
    await writeCerts(
      join(dir, 'direct'),
      await makeClusterCerts({ clusterName: 'direct', clusterId: 'direct', now: new Date() }),
    );
    const port = await freePort();
    const n = dask([
      'distributed.cli.dask_worker',
      `tls://127.0.0.1:${port}`,
      '--nthreads',
      '1',
      '--no-dashboard',
      ...tlsArgs('direct', 'worker'),
      ...schedulerWaitArgv(preload, true),
    ]);
    await n.waitFor(/Run preload setup: \S*scheduler_wait\.py/);
    const s = scheduler(port, ['--protocol', 'tls', ...tlsArgs('direct', 'scheduler')]);
    await s.waitFor(/Register worker/);
    await n.waitFor(/scheduler tls:\/\/127\.0\.0\.1:\d+ accepted after [\d.]+ s \(\d+ probes, direct connects\)/);
    expect(n.log()).not.toMatch(RETRY);
    expect(s.log()).not.toMatch(/closed before handshake|TLS handshake failed/);
  }, 60_000);

  it("a scheduler named by host name is probed through Dask's own connector", async () => {
    const port = await freePort();
    const n = dask([
      'distributed.cli.dask_worker',
      `tcp://localhost:${port}`,
      '--nthreads',
      '1',
      '--no-dashboard',
      ...schedulerWaitArgv(preload, true),
    ]);
    await n.waitFor(/Run preload setup: \S*scheduler_wait\.py/);
    const s = scheduler(port);
    await s.waitFor(/Register worker/);
    await n.waitFor(/scheduler tcp:\/\/localhost:\d+ accepted after [\d.]+ s \(\d+ probes, Dask's connector\)/);
    expect(n.log()).not.toMatch(RETRY);
  }, 60_000);

  it('with no scheduler, the nanny gives up as Dask does, after its own connect timeout once more', async () => {
    const port = await freePort();
    const n = nanny(port, true, { DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT: '1s' });
    expect(await n.exited).not.toBe(0);
    expect(n.log()).toMatch(/Timed out trying to connect to tcp:\/\/127\.0\.0\.1:\d+ after 1 s/);
    expect(n.log()).not.toMatch(/accepted after/);
  }, 60_000);

  it("with a certificate the scheduler's CA did not sign, it stops at the first refusal and the nanny fails as Dask's own does", async () => {
    for (const c of ['ours', 'other'])
      await writeCerts(join(dir, c), await makeClusterCerts({ clusterName: c, clusterId: c, now: new Date() }));
    const port = await freePort();
    const s = scheduler(port, ['--protocol', 'tls', ...tlsArgs('ours', 'scheduler')]);
    await s.waitFor(/Scheduler at: +tls:/);
    const n = dask([
      'distributed.cli.dask_worker',
      `tls://127.0.0.1:${port}`,
      '--nthreads',
      '1',
      '--no-dashboard',
      ...tlsArgs('other', 'worker'),
      ...schedulerWaitArgv(preload, true),
    ]);
    expect(await n.exited).not.toBe(0);
    // Not polled until the connect timeout (30 s): the refusal is final, and said by Dask.
    expect(n.log()).toMatch(/not waiting for the scheduler: FatalCommClosedError/);
    expect(n.log()).toMatch(/FatalCommClosedError: TLS certificate does not match/);
    expect(n.log()).not.toMatch(/accepted after/);
  }, 60_000);

  it('is given to a nanny with --preload-nanny, to a worker without one with --preload', () => {
    expect(schedulerWaitArgv('/d/scheduler_wait.py', true)).toEqual(['--preload-nanny', '/d/scheduler_wait.py']);
    expect(schedulerWaitArgv('/d/scheduler_wait.py', false)).toEqual(['--preload', '/d/scheduler_wait.py']);
  });
});
