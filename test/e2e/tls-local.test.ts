// The local cluster with TLS (`up --security tls`): a client built from `sshcluster env`
// computes; a plain tcp:// client and a client holding another CA's certificate are
// refused; no key material shows in ps, the state, status or logs; the files are 0600
// in a 0700 dir and gone after Ctrl-C.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeClusterCerts } from '../../src/tls/cert-authority.js';
import { writeCerts } from '../../src/tls/cert-store.js';
import { runCli, startCli, STATE_HOME, type CliRun } from './cli-driver.js';

const NAME = 'tlslocal';
const TLS_DIR = path.join(STATE_HOME, 'sshcluster', NAME, 'tls');
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'sshc-tls-e2e-'));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

/** Python under the client's environment; exit code and the last line it printed. */
function python(code: string, env: Record<string, string> = {}): { code: number | null; out: string } {
  const r = spawnSync('/usr/bin/python3', ['-c', code], {
    env: { PATH: '/usr/bin:/bin', ...env },
    encoding: 'utf8',
    timeout: 90_000,
  });
  return { code: r.status, out: (r.stdout.trim().split('\n').at(-1) ?? '') + r.stderr.slice(-300) };
}

/** The base64 body lines of every private key: what must never show anywhere. */
function keyLines(): string[] {
  return ['scheduler', 'worker', 'client']
    .flatMap((role) => fs.readFileSync(path.join(TLS_DIR, `${role}-key.pem`), 'utf8').split('\n'))
    .filter((l) => l && !l.startsWith('-----'));
}

describe('sshcluster up --security tls (local)', () => {
  let run: CliRun;
  let address: string;
  let vars: Record<string, string>;

  beforeAll(async () => {
    // Certificates for 2 days (tests only): inside the 7 days status warns about.
    run = startCli(['up', '--security', 'tls', '--name', NAME, '--python', '/usr/bin/python3', '--no-tui'], {
      SSHCLUSTER_TEST_CERT_DAYS: '2',
    });
    const m = await run.waitFor(/ {2}scheduler: (\S+)\n.*\n {2}eval "\$\(sshcluster env --name tlslocal\)"/);
    address = m[1]!;
  });
  afterAll(() => void run.child.kill('SIGKILL'));

  it('listens on tls:// and keeps its files 0600 in a 0700 dir', () => {
    expect(address).toMatch(/^tls:\/\/127\.0\.0\.1:\d+$/);
    expect(fs.statSync(TLS_DIR).mode & 0o777).toBe(0o700);
    for (const f of fs.readdirSync(TLS_DIR)) expect(fs.statSync(path.join(TLS_DIR, f)).mode & 0o777).toBe(0o600);
  });

  it('says when its certificates end, warning within 7 days: up, status --json and status', () => {
    expect(run.output()).toMatch(
      /the cluster's TLS certificates expire at \S+ \S+ UTC \(in 1 day\(s\)\): from then no new worker or client can connect/,
    );
    const st = JSON.parse(runCli(['status', '--name', NAME, '--json']).stdout) as {
      certificates: { notAfter: string; expiresInDays: number; warning: string | null };
    };
    const left = Date.parse(st.certificates.notAfter) - Date.now();
    expect(left).toBeGreaterThan(1.9 * 86_400_000);
    expect(left).toBeLessThanOrEqual(2 * 86_400_000);
    expect(st.certificates.expiresInDays).toBe(1);
    expect(st.certificates.warning).toContain("the cluster's TLS certificates expire at");
    const text = runCli(['status', '--name', NAME]).stdout;
    expect(text).toMatch(/^ {2}certificates: valid until \S+ \S+ UTC \(1 day\(s\) left\)$/m);
    expect(text).toContain(`  warning: ${st.certificates.warning}`);
  });

  it('computes for a client built from sshcluster env', () => {
    const env = runCli(['env', '--name', NAME, '--json']);
    expect(env.code).toBe(0);
    vars = JSON.parse(env.stdout).env as Record<string, string>;
    expect(vars.DASK_SCHEDULER_ADDRESS).toBe(address);
    const ok = python(
      'from distributed import Client\nc = Client(timeout=30)\nprint(c.submit(sum, [1, 2, 3]).result(), next(iter(c.scheduler_info()["workers"]))[:6])',
      vars,
    );
    expect(ok.out).toMatch(/^6 tls:\/\//);
  });

  it("refuses a plain tcp:// client and a client holding another CA's certificate", async () => {
    const port = address.split(':').at(-1);
    const plain = python(
      `from distributed import Client\ntry:\n    Client("tcp://127.0.0.1:${port}", timeout=5)\n    print("CONNECTED")\nexcept Exception as e:\n    print("refused", type(e).__name__)`,
    );
    expect(plain.out).toMatch(/^refused/);
    const otherDir = path.join(scratch, 'other');
    await writeCerts(otherDir, await makeClusterCerts({ clusterName: 'other', clusterId: 'other', now: new Date() }));
    const stranger = {
      ...vars,
      DASK_DISTRIBUTED__COMM__TLS__CLIENT__CERT: path.join(otherDir, 'client.pem'),
      DASK_DISTRIBUTED__COMM__TLS__CLIENT__KEY: path.join(otherDir, 'client-key.pem'),
    };
    const refused = python(
      'from distributed import Client\ntry:\n    c = Client(timeout=5)\n    print("CONNECTED", c.submit(sum, [1]).result(timeout=5))\nexcept Exception as e:\n    print("refused", type(e).__name__)',
      stranger,
    );
    expect(refused.out).toMatch(/^refused/);
  });

  it('shows no key material in ps, status, the state file, the logs or its output', () => {
    const secrets = keyLines();
    expect(secrets.length).toBeGreaterThan(0);
    const ps = spawnSync('ps', ['-eo', 'args'], { encoding: 'utf8' }).stdout;
    const status = runCli(['status', '--name', NAME, '--json']).stdout;
    const state = fs.readFileSync(path.join(STATE_HOME, 'sshcluster', NAME, 'state.json'), 'utf8');
    const logsDir = path.join(STATE_HOME, 'sshcluster', NAME, 'logs');
    // Logs are kept per run (logs/<run id>/<process>.log): read every file below logs/.
    const files = (fs.readdirSync(logsDir, { recursive: true }) as string[])
      .map((f) => path.join(logsDir, f))
      .filter((f) => fs.statSync(f).isFile());
    expect(files.length).toBeGreaterThan(0);
    const logs = files.map((f) => fs.readFileSync(f, 'utf8')).join('\n');
    for (const [where, text] of Object.entries({ ps, status, state, logs, output: run.output() })) {
      expect(
        secrets.filter((l) => text.includes(l)),
        where,
      ).toEqual([]);
    }
    expect(ps).toContain(`--tls-key ${TLS_DIR}/scheduler-key.pem`); // paths only
  });

  it('stops cleanly on Ctrl-C and removes its certificates', async () => {
    run.child.kill('SIGINT');
    const exit = await run.exited;
    expect(exit.code).toBe(0);
    expect(run.output()).toContain('verified: no process of this cluster is left on any host');
    expect(fs.existsSync(TLS_DIR)).toBe(false);
  });
});
