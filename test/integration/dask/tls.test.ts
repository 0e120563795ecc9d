// Dask's TLS flags and config: argv and env for scheduler/worker, what a client needs,
// and a real Dask 2022.12 scheduler started with them listening on tls://.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { schedulerAddress } from '../../../src/config/addresses.js';
import type { WorkerOptions } from '../../../src/config/spec.js';
import { schedulerArgv, schedulerEnv, workerArgv } from '../../../src/dask/argv.js';
import { parseSchedulerLine } from '../../../src/dask/log-lines.js';
import { clientEnv, requireEncryptionEnv } from '../../../src/dask/tls.js';
import { prepareCerts } from '../../../src/tls/cert-store.js';
import { tlsPathsIn } from '../../../src/tls/tls-files.js';
import { testSpec } from '../../unit/config/spec-fixture.js';

const worker: WorkerOptions = {
  nthreads: 1,
  nworkers: 1,
  memoryLimit: 'auto',
  resources: {},
  nanny: true,
  deathTimeoutS: 60,
};
const dir = mkdtempSync(path.join(os.tmpdir(), 'sshc-dask-tls-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('TLS argv and env', () => {
  it('gives the scheduler its own certificate and the tls protocol', () => {
    const argv = schedulerArgv(
      'py',
      { port: 8786, dashboardAddress: '127.0.0.1:8787', host: '10.0.0.1' },
      tlsPathsIn('/h/d', 'scheduler'),
    );
    expect(argv.slice(-8)).toEqual([
      '--protocol',
      'tls',
      '--tls-ca-file',
      '/h/d/ca.pem',
      '--tls-cert',
      '/h/d/scheduler.pem',
      '--tls-key',
      '/h/d/scheduler-key.pem',
    ]);
  });

  it('gives workers (and so their nannies) the worker certificate', () => {
    const argv = workerArgv('py', 'tls://n0:8786', 'n1-0', worker, tlsPathsIn('/h/d', 'worker'));
    expect(argv[3]).toBe('tls://n0:8786');
    expect(argv.slice(-8)).toEqual([
      '--protocol',
      'tls',
      '--tls-ca-file',
      '/h/d/ca.pem',
      '--tls-cert',
      '/h/d/worker.pem',
      '--tls-key',
      '/h/d/worker-key.pem',
    ]);
  });

  it('leaves plain clusters as they were', () => {
    expect(schedulerArgv('py', { port: 8786, dashboardAddress: ':8787' }).join(' ')).not.toContain('tls');
    expect(workerArgv('py', 'tcp://n0:8786', 'n1-0', worker).join(' ')).not.toContain('tls');
    expect(schedulerAddress(testSpec({ workers: [] }))).toBe('tcp://n0:8786');
    expect(schedulerAddress(testSpec({ workers: [] }), 'tls')).toBe('tls://n0:8786');
  });

  it("tells a client Dask's config names for the CA, its certificate and require-encryption", () => {
    expect(clientEnv('tls://n0:8786', tlsPathsIn('/s/tls', 'client'))).toEqual({
      DASK_SCHEDULER_ADDRESS: 'tls://n0:8786',
      DASK_DISTRIBUTED__COMM__TLS__CA_FILE: '/s/tls/ca.pem',
      DASK_DISTRIBUTED__COMM__TLS__CLIENT__CERT: '/s/tls/client.pem',
      DASK_DISTRIBUTED__COMM__TLS__CLIENT__KEY: '/s/tls/client-key.pem',
      DASK_DISTRIBUTED__COMM__REQUIRE_ENCRYPTION: 'True',
    });
    expect(clientEnv('tcp://n0:8786')).toEqual({ DASK_SCHEDULER_ADDRESS: 'tcp://n0:8786' });
  });
});

describe('a real Dask scheduler with these flags', () => {
  it('listens on tls:// even with --host, and its HTTP /health stays plain', async () => {
    const { dir: tls } = await prepareCerts({ clusterDir: dir, clusterName: 't', clusterId: 'd0', now: new Date() });
    const argv = schedulerArgv(
      '/usr/bin/python3',
      { port: 0, dashboardAddress: '127.0.0.1:0', host: '127.0.0.1' },
      tlsPathsIn(tls, 'scheduler'),
    );
    const env = { PATH: '/usr/bin:/bin', HOME: dir, ...schedulerEnv(), ...requireEncryptionEnv() };
    const proc = spawn(argv[0]!, argv.slice(1), { env, stdio: ['ignore', 'ignore', 'pipe'] });
    try {
      let listening: string | undefined;
      let dashboard: number | undefined;
      for await (const line of createInterface({ input: proc.stderr })) {
        const p = parseSchedulerLine(line);
        if (p?.kind === 'listening') listening = p.address;
        if (p?.kind === 'dashboard') dashboard = p.port;
        if (listening && dashboard) break;
      }
      expect(listening).toMatch(/^tls:\/\/127\.0\.0\.1:\d+$/);
      const health = await fetch(`http://127.0.0.1:${dashboard}/health`);
      expect(await health.text()).toBe('ok');
    } finally {
      proc.kill('SIGKILL');
    }
  });
});
