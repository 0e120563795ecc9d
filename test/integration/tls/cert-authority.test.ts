// The per-cluster CA: certificates parse, chain to their CA and not to another
// cluster's, and Python's ssl (the context Dask builds) loads them and completes a
// mutual-TLS handshake between two processes, while a peer from another CA is refused.
import { execFile, spawn } from 'node:child_process';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeClusterCerts, type ClusterCerts, type TlsRole } from '../../../src/tls/cert-authority.js';
import { writeCerts } from '../../../src/tls/cert-store.js';
import { tlsPathsIn } from '../../../src/tls/tls-files.js';

const HANDSHAKE = path.resolve(import.meta.dirname, '../fixtures/tls/handshake.py');
// Real time: the handshakes check validity against the clock.
const NOW = new Date();
// Debian's Python (what hosts run) and those named in SSHC_TEST_PYTHONS (colon-separated),
// e.g. a 3.13: its default context is strict (VERIFY_X509_STRICT), which wants key
// identifiers and critical constraints.
const PYTHONS = [
  ...new Set(
    ['/usr/bin/python3', ...(process.env.SSHC_TEST_PYTHONS ?? '').split(':')].filter((p) => p && existsSync(p)),
  ),
];

let certs: ClusterCerts;
let other: ClusterCerts;
let dir: string;
let otherDir: string;

beforeAll(async () => {
  certs = await makeClusterCerts({ clusterName: 'lab', clusterId: 'c0ffee01', now: NOW });
  other = await makeClusterCerts({ clusterName: 'lab', clusterId: 'beef0002', now: NOW });
  dir = mkdtempSync(path.join(os.tmpdir(), 'sshc-tls-'));
  otherDir = path.join(dir, 'other');
  await writeCerts(path.join(dir, 'mine'), certs);
  await writeCerts(otherDir, other);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('makeClusterCerts', () => {
  it('makes a P-256 CA with the cluster id in its subject, valid about 30 days', () => {
    const ca = new X509Certificate(certs.ca);
    expect(ca.ca).toBe(true);
    expect(ca.subject.split('\n')).toEqual(['CN=sshcluster CA lab', 'OU=c0ffee01', 'O=sshcluster']);
    expect(ca.publicKey.asymmetricKeyDetails).toMatchObject({ namedCurve: 'prime256v1' });
    const days = (Date.parse(ca.validTo) - NOW.getTime()) / 86_400_000;
    expect(days).toBeCloseTo(30, 0);
    expect(Date.parse(ca.validFrom)).toBeLessThan(NOW.getTime());
  });

  it.each(['scheduler', 'worker', 'client'] as TlsRole[])(
    'signs the %s certificate with the CA, for its own key',
    (role) => {
      const ca = new X509Certificate(certs.ca);
      const cert = new X509Certificate(certs[role].cert);
      expect(cert.ca).toBe(false);
      expect(cert.subject).toContain('OU=c0ffee01');
      expect(cert.checkIssued(ca)).toBe(true);
      expect(cert.verify(ca.publicKey)).toBe(true);
      expect(cert.checkPrivateKey(createPrivateKey(certs[role].key))).toBe(true);
      expect(cert.verify(new X509Certificate(other.ca).publicKey)).toBe(false);
    },
  );

  it('makes a new CA and new keys every time', () => {
    expect(other.ca).not.toBe(certs.ca);
    expect(other.worker.key).not.toBe(certs.worker.key);
  });
});

describe.each(PYTHONS)('Python ssl (%s)', (python) => {
  const mine = (role: TlsRole) => tlsPathsIn(path.join(dir, 'mine'), role);

  it('completes a mutual-TLS handshake: scheduler certificate serving, client certificate connecting', async () => {
    const r = await handshake(python, mine('scheduler'), mine('client'));
    expect(r.server).toMatch(/^accepted sshcluster client TLSv1\.[23]$/);
    expect(r.client).toMatch(/^connected TLSv1\.[23]$/);
  });

  it('lets a worker certificate both serve and connect', async () => {
    const r = await handshake(python, mine('worker'), mine('worker'));
    expect(r.server).toMatch(/^accepted sshcluster worker/);
  });

  it("refuses a client holding another cluster's certificate", async () => {
    const stranger = { ...tlsPathsIn(otherDir, 'client'), caFile: mine('client').caFile };
    const r = await handshake(python, mine('scheduler'), stranger);
    expect(r.server).toMatch(/^refused/);
    expect(r.client).toMatch(/^refused|^closed/);
  });

  it("refuses a server holding another cluster's certificate", async () => {
    const impostor = { ...tlsPathsIn(otherDir, 'scheduler'), caFile: mine('scheduler').caFile };
    const r = await handshake(python, impostor, mine('client'));
    expect(r.client).toMatch(/^refused/);
  });
});

describe('Dask 2022.12 Security', () => {
  it('builds listen and connection contexts from the files with require_encryption', async () => {
    const p = (role: TlsRole) => tlsPathsIn(path.join(dir, 'mine'), role);
    const script = [
      'import sys; from distributed.security import Security',
      'a = sys.argv[1:]',
      's = Security(tls_ca_file=a[0], tls_scheduler_cert=a[1], tls_scheduler_key=a[2], tls_client_cert=a[3], tls_client_key=a[4], require_encryption=True)',
      'print(type(s.get_listen_args("scheduler")["ssl_context"]).__name__, type(s.get_connection_args("client")["ssl_context"]).__name__, s.require_encryption)',
    ].join('\n');
    const args = [p('scheduler').caFile, p('scheduler').cert, p('scheduler').key, p('client').cert, p('client').key];
    const { stdout } = await promisify(execFile)('/usr/bin/python3', ['-c', script, ...args]);
    expect(stdout.trim()).toBe('SSLContext SSLContext True');
  });
});

interface Side {
  caFile: string;
  cert: string;
  key: string;
}

async function handshake(python: string, server: Side, client: Side): Promise<{ server: string; client: string }> {
  const srv = spawn(python, [HANDSHAKE, 'server', server.caFile, server.cert, server.key]);
  try {
    const lines = createInterface({ input: srv.stdout })[Symbol.asyncIterator]();
    const port = (await lines.next()).value as string;
    const c = await run(python, [HANDSHAKE, 'client', client.caFile, client.cert, client.key, port]);
    const verdict = (await lines.next()).value as string;
    return { server: verdict, client: c };
  } finally {
    srv.kill();
  }
}

function run(python: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(python, args, (err, stdout, stderr) =>
      err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout.trim()),
    );
  });
}
