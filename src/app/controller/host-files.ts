// The files a cluster keeps on its hosts over SSH: the TLS material each host's roles
// need and, on the scheduler's host, the scheduler preload (the adaptive loop's demand
// route). They travel with every process started there, in the same exec: the launcher
// writes them first (files.py) and puts their directory into the argv, which names them
// under CLUSTER_FILES_DIR. The local cluster uses this machine's copies.
import type { ClusterSpec, HostSpec } from '../../config/spec.js';
import { CLUSTER_FILES_DIR, type ClusterFiles } from '../../dask/remote-command.js';
import { SCHEDULER_DEMAND_PRELOAD_PATH, schedulerDemandPreload } from '../../dask/scheduler-preload.js';
import type { SessionTls } from '../tls-setup.js';

/**
 * Whether the cluster keeps files on `host` over SSH (what launchFiles() gives it): the
 * scheduler preload on the scheduler's host, and with TLS the certificates on each.
 * What a `down` from the state file must remove with the processes.
 */
export function keepsFilesOn(spec: ClusterSpec, host: string): boolean {
  return !spec.local && (spec.security?.kind === 'tls' || host === spec.schedulerHost.name);
}

/** The scheduler preload's name on a host. */
const PRELOAD_FILE = 'scheduler_demand.py';

/** Where the scheduler finds its preload. */
export function schedulerPreloadPath(spec: ClusterSpec): string {
  return spec.local ? SCHEDULER_DEMAND_PRELOAD_PATH : `${CLUSTER_FILES_DIR}/${PRELOAD_FILE}`;
}

/**
 * What each process started on `h` is given first; undefined: nothing. Without its TLS
 * files a process cannot take part (it does not start); without the preload the
 * scheduler runs as Dask's own and adaptive ignores resources (the launcher says so in
 * its output, and the adaptive loop once more).
 */
export function launchFiles(spec: ClusterSpec, tls: SessionTls | undefined, h: HostSpec): ClusterFiles | undefined {
  if (!keepsFilesOn(spec, h.name)) return undefined;
  const tlsFiles = tls?.filesFor?.(h.name) ?? [];
  const preload = h.name === spec.schedulerHost.name ? [{ name: PRELOAD_FILE, content: schedulerDemandPreload() }] : [];
  const files = [...tlsFiles, ...preload];
  return files.length ? { files, optional: tlsFiles.length === 0 } : undefined;
}
