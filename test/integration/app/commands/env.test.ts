// `sshcluster env`: from the state file, the address and (TLS) the client's variables,
// as shell exports a real sh evaluates, as JSON, or as Python that builds a working
// Security from the cluster's files.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AppContext } from '../../../../src/app/context.js';
import { runEnv } from '../../../../src/app/commands/env.js';
import { clusterPaths, ensureClusterDir, stateRoot } from '../../../../src/control/paths.js';
import { writeState } from '../../../../src/control/state-file.js';
import { prepareCerts, removeCerts } from '../../../../src/tls/cert-store.js';
import { testSpec } from '../../../unit/config/spec-fixture.js';

const run = promisify(execFile);
let home: string;
let out: string;
let err: string;
let tlsDir: string;

function ctx(): AppContext {
  return {
    env: { XDG_STATE_HOME: path.join(home, 'state') },
    pid: 1,
    cwd: home,
    homedir: home,
    username: 'u',
    cores: 1,
    memoryBytes: 0,
    stdout: { write: (t) => void (out += t) },
    stderr: { write: (t) => void (err += t) },
    onReaderGone: () => undefined,
    onSignal: () => () => undefined,
    promptSecret: async () => '',
  };
}

async function cluster(name: string, address: string): Promise<void> {
  const paths = clusterPaths(stateRoot(ctx().env, home), name);
  await ensureClusterDir(paths);
  const spec = { ...testSpec({ workers: ['n1'] }), name };
  await writeState(paths.stateFile, {
    version: 1,
    name,
    clusterId: 'id-' + name,
    spec,
    controller: null,
    schedulerAddress: address,
    dashboardUrl: 'http://127.0.0.1:1/status',
    processes: [],
    desiredWorkers: 1,
    updatedAt: new Date().toISOString(),
  });
  if (address.startsWith('tls://'))
    tlsDir = (
      await prepareCerts({ clusterDir: paths.dir, clusterName: name, clusterId: 'id-' + name, now: new Date() })
    ).dir;
}

beforeEach(() => {
  home = mkdtempSync(path.join(os.tmpdir(), 'sshc-env-'));
  out = '';
  err = '';
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

describe('sshcluster env', () => {
  it('prints exports a shell evaluates into the address and Dask TLS config', async () => {
    await cluster('lab', 'tls://n0:8786');
    expect(await runEnv(ctx(), { name: 'lab', json: false, python: false })).toBe(0);
    expect(out.trim().split('\n')).toEqual([
      'export DASK_SCHEDULER_ADDRESS=tls://n0:8786',
      `export DASK_DISTRIBUTED__COMM__TLS__CA_FILE=${tlsDir}/ca.pem`,
      `export DASK_DISTRIBUTED__COMM__TLS__CLIENT__CERT=${tlsDir}/client.pem`,
      `export DASK_DISTRIBUTED__COMM__TLS__CLIENT__KEY=${tlsDir}/client-key.pem`,
      'export DASK_DISTRIBUTED__COMM__REQUIRE_ENCRYPTION=True',
    ]);
    const { stdout } = await run('sh', [
      '-c',
      `eval "$1"; echo "$DASK_SCHEDULER_ADDRESS|$DASK_DISTRIBUTED__COMM__TLS__CLIENT__KEY"`,
      'sh',
      out,
    ]);
    expect(stdout.trim()).toBe(`tls://n0:8786|${tlsDir}/client-key.pem`);
  });

  it('says on stderr when no controller runs: the exports may name a scheduler that is gone', async () => {
    // Found by the h40trial trial: env of a cluster whose controller was gone printed the
    // exports, exit 0, and nothing else.
    await cluster('plain', 'tcp://n0:8786');
    expect(await runEnv(ctx(), { name: 'plain', json: false, python: false })).toBe(0);
    expect(out).toContain('export DASK_SCHEDULER_ADDRESS=tcp://n0:8786\n');
    expect(err).toBe(
      'warning: no controller is running for cluster "plain", so its scheduler may be gone: sshcluster up --name plain --detach starts a new controller that adopts what is still running; sshcluster down --name plain stops it\n',
    );
  });

  it("prints the address for a plain cluster, found as the only one, and unsets a TLS cluster's variables", async () => {
    await cluster('plain', 'tcp://n0:8786');
    await runEnv(ctx(), { json: false, python: false });
    expect(out).toBe(
      'export DASK_SCHEDULER_ADDRESS=tcp://n0:8786\n' +
        'unset DASK_DISTRIBUTED__COMM__TLS__CA_FILE DASK_DISTRIBUTED__COMM__TLS__CLIENT__CERT DASK_DISTRIBUTED__COMM__TLS__CLIENT__KEY DASK_DISTRIBUTED__COMM__REQUIRE_ENCRYPTION\n',
    );
    // eval'd after a TLS cluster's: the shell has nothing of it left.
    const { stdout } = await run('sh', [
      '-c',
      `export DASK_DISTRIBUTED__COMM__REQUIRE_ENCRYPTION=True; eval "$1"; echo "$DASK_SCHEDULER_ADDRESS|\${DASK_DISTRIBUTED__COMM__REQUIRE_ENCRYPTION-unset}"`,
      'sh',
      out,
    ]);
    expect(stdout.trim()).toBe('tcp://n0:8786|unset');
  });

  it("exports no security loader: in a Python without the sshcluster package, Dask's Client would fail on it", async () => {
    await cluster('lab', 'tls://n0:8786');
    await runEnv(ctx(), { name: 'lab', json: false, python: false });
    expect(out).not.toContain('SECURITY_LOADER');
    // Why: what `env` exports reaches every Python of that shell, and Dask imports the
    // configured loader for every Client(address), failing when it cannot.
    const py = [
      'import sys; sys.modules["sshcluster"] = None  # a Python without the package',
      'from distributed.client import _maybe_call_security_loader',
      'try:',
      '    _maybe_call_security_loader("tls://n0:8786")',
      'except ImportError as e:',
      '    print("ImportError", e)',
    ].join('\n');
    const { stdout } = await run('/usr/bin/python3', ['-c', py], {
      env: { ...process.env, DASK_DISTRIBUTED__CLIENT__SECURITY_LOADER: 'sshcluster.security_loader' },
    });
    expect(stdout).toContain('ImportError Failed to import `sshcluster.security_loader`');
  });

  it('--json gives the same variables for scripts', async () => {
    await cluster('lab', 'tls://n0:8786');
    await runEnv(ctx(), { name: 'lab', json: true, python: false });
    const doc = JSON.parse(out);
    expect(doc).toMatchObject({ name: 'lab', schedulerAddress: 'tls://n0:8786', tls: true });
    expect(doc.env.DASK_DISTRIBUTED__COMM__TLS__CA_FILE).toBe(`${tlsDir}/ca.pem`);
    expect(Object.keys(doc.env)).toHaveLength(5);
  });

  it('--python builds a Security that loads the client certificate (Dask 2022.12)', async () => {
    await cluster('lab', 'tls://n0:8786');
    await runEnv(ctx(), { name: 'lab', json: false, python: true });
    const stub = [
      'import distributed',
      'def fake_client(address, security):',
      '    ctx = security.get_connection_args("client")["ssl_context"]',
      '    print(address, security.require_encryption, type(ctx).__name__)',
      'distributed.Client = fake_client',
    ].join('\n');
    const { stdout } = await run('/usr/bin/python3', ['-c', `${stub}\n${out}`]);
    expect(stdout.trim()).toBe('tls://n0:8786 True SSLContext');
  });

  it("fails what is eval'd when it fails: `false` for a shell, SystemExit for Python, nothing for --json", async () => {
    await cluster('lab', 'tcp://n0:8786');
    await expect(runEnv(ctx(), { name: 'typo', json: false, python: false })).rejects.toThrow(
      /no cluster named "typo"/,
    );
    expect(out).toBe('false\n');
    // `eval "$(sshcluster env --name typo)" && python job.py` stops at the eval.
    const sh = await run('sh', ['-c', `eval "$1" && echo ran; echo "eval:$?"`, 'sh', out]);
    expect(sh.stdout).toBe('eval:1\n');
    out = '';
    await expect(runEnv(ctx(), { name: 'typo', json: false, python: true })).rejects.toThrow(/no cluster named "typo"/);
    const py = await run('/usr/bin/python3', ['-c', `${out}\nprint("ran")`]).catch(
      (e: { code: number; stdout: string; stderr: string }) => e,
    );
    expect(py).toMatchObject({ code: 1, stdout: '' });
    expect(py.stderr).toMatch(/^sshcluster env failed: no cluster named "typo"/);
    out = '';
    await expect(runEnv(ctx(), { name: 'typo', json: true, python: false })).rejects.toThrow(/no cluster named "typo"/);
    expect(out).toBe('');
  });

  it('says how to recover when the client certificate is gone', async () => {
    await cluster('lab', 'tls://n0:8786');
    await removeCerts(path.dirname(tlsDir));
    await expect(runEnv(ctx(), { name: 'lab', json: false, python: false })).rejects.toThrow(
      /talks TLS but its client certificate is missing/,
    );
  });
});
