// When a cluster's certificates stop working. The CA's key is dropped once the
// certificates are signed (cert-authority.ts), so they cannot be renewed in place: a
// cluster lives as long as its certificates, and says so from 7 days before.
import { X509Certificate } from 'node:crypto';
import type { CertificatesStatus } from '../control/status-document.js';
import type { ClusterCerts } from './cert-authority.js';

export const WARN_DAYS = 7;
const DAY_MS = 86_400_000;

/** The earliest notAfter of the set (ISO 8601). */
export function certsNotAfter(certs: ClusterCerts): string {
  const ends = [certs.ca, certs.scheduler.cert, certs.worker.cert, certs.client.cert].map((pem) =>
    Date.parse(new X509Certificate(pem).validTo),
  );
  return new Date(Math.min(...ends)).toISOString();
}

export function certificatesStatus(notAfter: string, now: number): CertificatesStatus {
  const left = Date.parse(notAfter) - now;
  const expiresInDays = Math.floor(left / DAY_MS);
  return { notAfter, expiresInDays, warning: expiryWarning(notAfter, left) };
}

function expiryWarning(notAfter: string, left: number): string | null {
  const when = notAfter.slice(0, 16).replace('T', ' ') + ' UTC';
  if (left <= 0)
    return `the cluster's TLS certificates expired at ${when}: no new worker or client can connect; sshcluster down, then up, makes new ones`;
  if (left > WARN_DAYS * DAY_MS) return null;
  return `the cluster's TLS certificates expire at ${when} (in ${inWords(left)}): from then no new worker or client can connect; sshcluster down, then up, makes new ones`;
}

function inWords(ms: number): string {
  if (ms >= DAY_MS) return `${Math.floor(ms / DAY_MS)} day(s)`;
  if (ms >= 3_600_000) return `${Math.floor(ms / 3_600_000)} hour(s)`;
  return `${Math.max(1, Math.floor(ms / 60_000))} minute(s)`;
}
