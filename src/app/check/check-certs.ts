// `check` on the host file of a cluster this machine runs (or whose controller died):
// when its TLS certificates end, warning from 7 days before (tls/cert-expiry.ts).
import type { CertificatesStatus } from '../../control/status-document.js';
import { clusterPaths, stateRoot } from '../../control/paths.js';
import { readState } from '../../control/state-file.js';
import { certificatesStatus, certsNotAfter } from '../../tls/cert-expiry.js';
import { readCerts, tlsDir } from '../../tls/cert-store.js';
import type { AppContext } from '../context.js';

export interface ClusterCertificates {
  cluster: string;
  certificates: CertificatesStatus;
}

/** undefined when no cluster of that name has a state file here, or it has no certificates. */
export async function clusterCertificates(
  ctx: AppContext,
  name: string,
  now: number,
): Promise<ClusterCertificates | undefined> {
  const paths = clusterPaths(stateRoot(ctx.env, ctx.homedir), name);
  const state = await readState(paths.stateFile, { name }).catch(() => undefined);
  const certs = state && (await readCerts(tlsDir(paths.dir)).catch(() => undefined));
  if (!certs) return undefined;
  return { cluster: name, certificates: certificatesStatus(certsNotAfter(certs), now) };
}

export function certificatesText(c: ClusterCertificates | undefined): string {
  if (!c) return '';
  const { notAfter, expiresInDays, warning } = c.certificates;
  const left = expiresInDays < 0 ? 'expired' : `${expiresInDays} day(s) left`;
  return (
    `\ncluster "${c.cluster}" of this file: its TLS certificates are valid until ${notAfter.slice(0, 16).replace('T', ' ')} UTC (${left})\n` +
    (warning ? `  warning: ${warning}\n` : '')
  );
}
