// The names of a cluster's TLS files, the same in the cluster's state dir on this
// machine and in its private dir on each host, and which of them each host gets. One
// place, so the code that writes them and the argv that points Dask at them agree.
import path from 'node:path';
import type { ClusterCerts, TlsRole } from './cert-authority.js';

export const CA_FILE = 'ca.pem';

export function certFile(role: TlsRole): string {
  return `${role}.pem`;
}

export function keyFile(role: TlsRole): string {
  return `${role}-key.pem`;
}

/** What Dask's --tls-ca-file/--tls-cert/--tls-key (or a Security) take, for one role. */
export interface TlsPaths {
  caFile: string;
  cert: string;
  key: string;
}

/** Paths of a role's files in `dir`; posix joins, because `dir` may be on a remote host. */
export function tlsPathsIn(dir: string, role: TlsRole): TlsPaths {
  return {
    caFile: path.posix.join(dir, CA_FILE),
    cert: path.posix.join(dir, certFile(role)),
    key: path.posix.join(dir, keyFile(role)),
  };
}

export interface NamedFile {
  /** A bare file name (no directory part). */
  name: string;
  content: string;
}

/**
 * The files a host needs for the roles it runs (the scheduler host: scheduler, plus
 * worker when it also runs workers). The client key never leaves this machine.
 */
export function hostFiles(certs: ClusterCerts, roles: ReadonlySet<'scheduler' | 'worker'>): NamedFile[] {
  const files: NamedFile[] = [{ name: CA_FILE, content: certs.ca }];
  for (const role of ['scheduler', 'worker'] as const) {
    if (!roles.has(role)) continue;
    files.push({ name: certFile(role), content: certs[role].cert }, { name: keyFile(role), content: certs[role].key });
  }
  return files;
}

/** Every file of the set, as kept in the cluster's state dir on this machine. */
export function allFiles(certs: ClusterCerts): NamedFile[] {
  return [
    { name: CA_FILE, content: certs.ca },
    ...(['scheduler', 'worker', 'client'] as const).flatMap((role) => [
      { name: certFile(role), content: certs[role].cert },
      { name: keyFile(role), content: certs[role].key },
    ]),
  ];
}
