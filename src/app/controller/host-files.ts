// The files a cluster keeps on its hosts over SSH: the TLS material each host's roles
// need, on the scheduler's host the scheduler preload (the adaptive loop's demand
// route), and on each host the preload with which workers wait for the scheduler (on the
// scheduler's host too, which `apply` may give workers). They travel with every process
// started there, in the same exec: the launcher writes them first (files.py) and puts
// their directory into the argv, which names them under CLUSTER_FILES_DIR. The local
// cluster uses this machine's copies.
import type { ClusterSpec, HostSpec } from '../../config/spec.js';
import { CLUSTER_FILES_DIR, type ClusterFiles } from '../../dask/remote-command.js';
import { SCHEDULER_DEMAND_PRELOAD_PATH, schedulerDemandPreload } from '../../dask/scheduler-preload.js';
import { SCHEDULER_WAIT_FILE, SCHEDULER_WAIT_PATH, schedulerWaitPreload } from '../../dask/scheduler-wait.js';
import type { SessionTls } from '../tls-setup.js';

/**
 * Whether the cluster keeps files on its hosts, what a `down` from the state file must
 * remove with the processes: on every host, a local cluster's too, the Dask processes'
 * scratch space (CLUSTER_SCRATCH_DIR); over SSH, what launchFiles() gives each.
 */
export function keepsFilesOn(_spec: ClusterSpec): boolean {
  return true;
}

/** The scheduler preload's name on a host. */
const PRELOAD_FILE = 'scheduler_demand.py';

/** Where the scheduler finds its preload. */
export function schedulerPreloadPath(spec: ClusterSpec): string {
  return spec.local ? SCHEDULER_DEMAND_PRELOAD_PATH : `${CLUSTER_FILES_DIR}/${PRELOAD_FILE}`;
}

/** Where a worker finds the preload that waits for its scheduler. */
export function schedulerWaitPath(spec: ClusterSpec): string {
  return spec.local ? SCHEDULER_WAIT_PATH : `${CLUSTER_FILES_DIR}/${SCHEDULER_WAIT_FILE}`;
}

/**
 * What each process started on `h` is given first (undefined: a local cluster, which
 * uses this machine's copies). Without its TLS files a process cannot take part (it
 * does not start); without the preloads the scheduler runs as Dask's own and adaptive
 * ignores resources (the launcher says so in its output, and the adaptive loop once
 * more), and a worker registers through Dask's own retry.
 */
export function launchFiles(spec: ClusterSpec, tls: SessionTls | undefined, h: HostSpec): ClusterFiles | undefined {
  if (spec.local) return undefined;
  const tlsFiles = tls?.filesFor?.(h.name) ?? [];
  const preload = h.name === spec.schedulerHost.name ? [{ name: PRELOAD_FILE, content: schedulerDemandPreload() }] : [];
  const files = [...tlsFiles, ...preload, { name: SCHEDULER_WAIT_FILE, content: schedulerWaitPreload() }];
  return { files, optional: tlsFiles.length === 0 };
}
