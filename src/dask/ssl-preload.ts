// The TLS cluster's preload for every Dask process (remote/preload/ssl_error_queue.py): it clears
// OpenSSL's per-thread error queue before each TLS call, because CPython's ssl module
// does not (python/cpython#148594) and a stale error then breaks a healthy connection.
import { fileURLToPath } from 'node:url';
import { remoteSource } from './remote-programs.js';

/** Its name in the cluster's directory on a host. */
export const SSL_PRELOAD_FILE = 'ssl_error_queue.py';

/** This machine's copy, which a local cluster's processes load directly. */
export const SSL_PRELOAD_PATH = fileURLToPath(new URL(`./remote/preload/${SSL_PRELOAD_FILE}`, import.meta.url));

/** The preload's source text, to write to a host. */
export function sslPreload(): string {
  return remoteSource(`preload/${SSL_PRELOAD_FILE}`);
}

/**
 * `--preload` for the scheduler and the worker (the nanny hands it to its worker
 * process), and `--preload-nanny` for the nanny's own process: each of them holds TLS
 * connections on its event loop's thread.
 */
export function sslPreloadArgv(path: string, nanny: boolean): string[] {
  return ['--preload', path, ...(nanny ? ['--preload-nanny', path] : [])];
}
