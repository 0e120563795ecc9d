// New TLS certificates made by a short-lived `node` of their own (tls-cert-worker.ts),
// so the controller, which lives for days, never loads the X.509 library (~19 MB RSS)
// for a job done once. In-process where the built worker is absent (tests run sources).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ExpectedError } from '../errors.js';
import type { ClusterCerts, MakeCertsOptions } from '../tls/cert-authority.js';

const CERT_WORKER = fileURLToPath(new URL('./tls-cert-worker.js', import.meta.url));

export async function makeCertsApart(o: MakeCertsOptions): Promise<ClusterCerts> {
  if (!existsSync(CERT_WORKER)) return (await import('../tls/cert-authority.js')).makeClusterCerts(o);
  const child = spawn(process.execPath, [CERT_WORKER], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-2000)));
  child.stdin.end(JSON.stringify({ ...o, now: o.now.toISOString() }));
  const code = await new Promise<number | null>((resolve, reject) => child.on('error', reject).on('close', resolve));
  if (code !== 0)
    throw new ExpectedError(
      `making the cluster's TLS certificates failed (exit ${code}): ${err.trim().split('\n').at(-1) ?? ''}`,
    );
  return JSON.parse(out) as ClusterCerts;
}
