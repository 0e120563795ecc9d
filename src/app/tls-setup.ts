// `up`'s TLS step, before any process starts: the cluster's certificates (made, kept
// from a controller that died, or the user's own) in its state dir, and where each host
// finds them. `security: none` is allowed with one warning line.
import type { ClusterSpec, SecuritySpec } from '../config/spec.js';
import type { ClusterPaths } from '../control/paths.js';
import { ensureClusterDir } from '../control/paths.js';
import type { EventBus } from '../events/types.js';
import { prepareCerts } from '../tls/cert-store.js';
import { readOwnCerts } from '../tls/own-certs.js';

/** Where, on each host, the cluster's TLS files are (names: tls/tls-files.ts). */
export interface SessionTls {
  dirFor(host: string): string;
}

export interface TlsSetupOptions {
  spec: ClusterSpec;
  paths: ClusterPaths;
  clusterId: string;
  bus: EventBus;
  now: Date;
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
  const prepared = await prepareCerts({ clusterDir: o.paths.dir, clusterName: o.spec.name, clusterId: o.clusterId, now: o.now, own });
  if (prepared.reused) o.bus.emit({ kind: 'notice', level: 'info', message: "TLS: using the cluster's certificate authority from its state dir" });
  if (o.spec.local) return { dirFor: () => prepared.dir };
  // Shipping the files to the hosts' private dirs is not wired yet (it needs the
  // write-files-over-SSH step of the remote transport): until then, say so and run plain.
  o.bus.emit({ kind: 'notice', level: 'warning', message: `TLS for SSH hosts is not wired yet, so this cluster runs plain TCP: ${openPort(o.spec)}` });
  return undefined;
}

function openPort(spec: ClusterSpec): string {
  const host = spec.schedulerOptions.host ?? spec.schedulerHost.connect.hostname;
  return `the scheduler's port ${spec.schedulerOptions.port} on ${host} is open to anyone who can reach it (no encryption, no authentication)`;
}
