// The preload that holds a worker's registration until its scheduler listens
// (remote/preload/scheduler_wait.py): sshcluster starts workers together with their scheduler,
// and Dask's own retry after a refused connect sleeps a random, doubling time.
import { fileURLToPath } from 'node:url';
import { remoteSource } from './remote-programs.js';

/** Its name in the cluster's directory on a host. */
export const SCHEDULER_WAIT_FILE = 'scheduler_wait.py';

/** This machine's copy, which a local cluster's workers load directly. */
export const SCHEDULER_WAIT_PATH = fileURLToPath(new URL(`./remote/preload/${SCHEDULER_WAIT_FILE}`, import.meta.url));

/** The preload's source text, to write to a host. */
export function schedulerWaitPreload(): string {
  return remoteSource(`preload/${SCHEDULER_WAIT_FILE}`);
}

/**
 * `--preload-nanny` for the nanny, which registers first (its worker process is started
 * once that is done); `--preload` for a worker without a nanny.
 */
export function schedulerWaitArgv(path: string, nanny: boolean): string[] {
  return [nanny ? '--preload-nanny' : '--preload', path];
}
