// `up`'s TLS step, before any process starts: the cluster's certificates (made, kept
// from a controller that died, or the user's own) in its state dir, and where each host
// finds them: the local cluster reads the state dir; on an SSH host, each process is
// given the files its host's roles need as it starts (the launcher writes them into the
// cluster's private directory there), and its argv names them under CLUSTER_FILES_DIR.
// Beside them goes the preload every Dask process of a TLS cluster loads (dask/ssl-preload.ts).
// `security: none` is allowed with one warning line.
import type { ClusterSpec, SecuritySpec } from '../config/spec.js';
import type { ClusterPaths } from '../control/paths.js';
import { ensureClusterDir } from '../control/paths.js';
import type { EventBus } from '../events/types.js';
import type { ClusterCerts, MakeCertsOptions } from '../tls/cert-authority.js';
import { certificatesStatus, certsNotAfter } from '../tls/cert-expiry.js';
import { prepareCerts } from '../tls/cert-store.js';
import { makeCertsApart } from './cert-maker.js';
import { readOwnCerts } from '../tls/own-certs.js';
import { hostFiles, type NamedFile } from '../tls/tls-files.js';
import { SSL_PRELOAD_FILE, SSL_PRELOAD_PATH, sslPreload } from '../dask/ssl-preload.js';
import { CLUSTER_FILES_DIR } from '../dask/remote-command.js';
import path from 'node:path';

/** Where, on each host, the cluster's TLS files are (names: tls/tls-files.ts). */
export interface SessionTls {
  dirFor(host: string): string;
  /** Where, on `host`, its Dask processes find the TLS preload (dask/ssl-preload.ts). */
  preloadFor(host: string): string;
  /** SSH hosts: what each process started on `host` is given first (host-files.ts). */
  filesFor?(host: string): NamedFile[];
  /** ISO 8601: when the certificates end (cert-expiry.ts); status and the dashboard say it. */
  notAfter?: string;
}

export interface TlsSetupOptions {
  spec: ClusterSpec;
  paths: ClusterPaths;
  clusterId: string;
  bus: EventBus;
  now: Date;
  /** Re-adopting a dead controller's processes: their certificates, expired, are refused. */
  adopting?: boolean;
  /** New certificates' lifetime in days (default 30; tests shorten it). */
  validDays?: number;
}

/** undefined: the processes talk plain TCP. */
export async function setUpTls(o: TlsSetupOptions): Promise<SessionTls | undefined> {
  const security: SecuritySpec = o.spec.security ?? { kind: 'none' };
  if (security.kind === 'none') {
    if (!o.spec.local) o.bus.emit({ kind: 'notice', level: 'warning', message: `security: none: ${openPort(o.spec)}` });
    return undefined;
  }
  await ensureClusterDir(o.paths);
  const own = security.files ? await readOwnCerts(security.files) : undefined;
  const make = (m: MakeCertsOptions) => makeCertsApart({ ...m, ...(o.validDays ? { validDays: o.validDays } : {}) });
  const prepared = await prepareCerts({
    clusterDir: o.paths.dir,
    clusterName: o.spec.name,
    clusterId: o.clusterId,
    now: o.now,
    own,
    make,
    adopting: o.adopting,
  });
  if (prepared.reused)
    o.bus.emit({
      kind: 'notice',
      level: 'info',
      message: "TLS: using the cluster's certificate authority from its state dir",
    });
  const notAfter = certsNotAfter(prepared.certs);
  const { warning } = certificatesStatus(notAfter, o.now.getTime());
  if (warning) o.bus.emit({ kind: 'notice', level: 'warning', message: warning });
  if (o.spec.local) return { dirFor: () => prepared.dir, preloadFor: () => SSL_PRELOAD_PATH, notAfter };
  return { ...shippedTls(o.spec, prepared.certs), notAfter };
}

/** The client key never leaves this machine; the scheduler's only goes to its host. */
function shippedTls(spec: ClusterSpec, certs: ClusterCerts): SessionTls {
  const workerHosts = new Set(spec.workerHosts.map((h) => h.name));
  return {
    dirFor: () => CLUSTER_FILES_DIR,
    preloadFor: () => path.posix.join(CLUSTER_FILES_DIR, SSL_PRELOAD_FILE),
    filesFor(host) {
      const roles = new Set<'scheduler' | 'worker'>();
      if (host === spec.schedulerHost.name) roles.add('scheduler');
      // A host added by `apply` is a worker host too.
      if (host !== spec.schedulerHost.name || workerHosts.has(host)) roles.add('worker');
      return [...hostFiles(certs, roles), { name: SSL_PRELOAD_FILE, content: sslPreload() }];
    },
  };
}

function openPort(spec: ClusterSpec): string {
  const host = spec.schedulerOptions.host ?? spec.schedulerHost.connect.hostname;
  return `the scheduler's port ${spec.schedulerOptions.port} on ${host} is open to anyone who can reach it (no encryption, no authentication)`;
}
