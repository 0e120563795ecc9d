// A cluster's TLS files on this machine: <cluster state dir>/tls/, a 0700 dir of 0600
// files. Made at `up`, kept while the cluster lives (so a controller that adopts the
// cluster after a crash uses the same CA its processes trust), removed by `down`.
import { X509Certificate } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ExpectedError } from '../errors.js';
import type { ClusterCerts, MakeCertsOptions, TlsRole } from './cert-authority.js';
import { allFiles, CA_FILE, certFile, keyFile } from './tls-files.js';
import { certsNotAfter } from './cert-expiry.js';

export function tlsDir(clusterDir: string): string {
  return path.join(clusterDir, 'tls');
}

export interface PrepareCertsOptions {
  /** The cluster's state dir (ClusterPaths.dir). */
  clusterDir: string;
  clusterName: string;
  clusterId: string;
  now: Date;
  /** The user's own certificates (security: {ca_file, …}): copied in, never made. */
  own?: ClusterCerts;
  /** How new certificates are made (default: here, loading the X.509 library). */
  make?: (o: MakeCertsOptions) => Promise<ClusterCerts>;
  uid?: number;
  /** Re-adopting: the running processes trust only this cluster's CA, so an expired set is refused, not replaced. */
  adopting?: boolean;
}

export interface PreparedCerts {
  certs: ClusterCerts;
  dir: string;
  /** true when an earlier set of this cluster (same cluster id, still valid) was kept. */
  reused: boolean;
}

/**
 * The cluster's certificates: the user's own when given, else the set already in the
 * state dir when it belongs to this cluster id and is still valid, else a new CA.
 */
export async function prepareCerts(o: PrepareCertsOptions): Promise<PreparedCerts> {
  const dir = tlsDir(o.clusterDir);
  if (!o.own) {
    const kept = await readCerts(dir);
    const end = kept && belongsTo(kept, o.clusterId) ? certsNotAfter(kept) : undefined;
    if (kept && end && Date.parse(end) > o.now.getTime()) return { certs: kept, dir, reused: true };
    if (end && o.adopting) {
      throw new ExpectedError(
        `cluster "${o.clusterName}": its TLS certificates expired at ${end.slice(0, 16).replace('T', ' ')} UTC; its running processes accept no new worker or client, and certificates cannot be renewed in place (the CA's key is not kept)`,
        {
          hint: `sshcluster down --name ${o.clusterName} stops it; up then starts it with new certificates (valid 30 days)`,
        },
      );
    }
  }
  const make = o.make ?? (async (m: MakeCertsOptions) => (await import('./cert-authority.js')).makeClusterCerts(m));
  const certs = o.own ?? (await make({ clusterName: o.clusterName, clusterId: o.clusterId, now: o.now }));
  await writeCerts(dir, certs, o.uid);
  return { certs, dir, reused: false };
}

function belongsTo(certs: ClusterCerts, clusterId: string): boolean {
  try {
    return new X509Certificate(certs.ca).subject.split('\n').includes(`OU=${clusterId}`);
  } catch {
    return false;
  }
}

/** undefined when the dir or any file of the set is missing. */
export async function readCerts(dir: string): Promise<ClusterCerts | undefined> {
  const read = (name: string) => fs.readFile(path.join(dir, name), 'utf8');
  try {
    const pair = async (role: TlsRole) => ({ cert: await read(certFile(role)), key: await read(keyFile(role)) });
    return {
      ca: await read(CA_FILE),
      scheduler: await pair('scheduler'),
      worker: await pair('worker'),
      client: await pair('client'),
    };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Each file written to a temp name (0600) and renamed over, so no reader sees half a key. */
export async function writeCerts(dir: string, certs: ClusterCerts, uid?: number): Promise<void> {
  await ensurePrivateDir(dir, uid);
  for (const f of allFiles(certs)) {
    const tmp = path.join(dir, `.${f.name}.tmp`);
    await fs.rm(tmp, { force: true });
    await fs.writeFile(tmp, f.content, { mode: 0o600, flag: 'wx' });
    await fs.rename(tmp, path.join(dir, f.name));
  }
}

export async function removeCerts(clusterDir: string): Promise<void> {
  await fs.rm(tlsDir(clusterDir), { recursive: true, force: true });
}

async function ensurePrivateDir(dir: string, uid: number | undefined): Promise<void> {
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  const st = await fs.lstat(dir);
  const me = uid ?? os.userInfo().uid;
  if (!st.isDirectory() || (me !== undefined && st.uid !== me)) {
    throw new ExpectedError(`${dir} is not a directory owned by this user; refusing to keep keys there`, {
      hint: 'remove it after checking what it is',
    });
  }
  await fs.chmod(dir, 0o700);
}
