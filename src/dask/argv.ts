// argv of `dask scheduler` / `dask worker`, spelled as `python -m distributed.cli.…`
// because that module path works from distributed 2.x to today, while the `dask`
// entry point (and `dask-worker` vs `dask worker`) differs between versions.
import type { SchedulerOptions, WorkerOptions } from '../config/spec.js';
import type { TlsPaths } from '../tls/tls-files.js';
import { tlsArgv } from './tls.js';
import { CLUSTER_SCRATCH_DIR } from './dask-env.js';

export { schedulerEnv, workerEnv, DASK_API_ROUTES, DASK_LOG_FORMAT, CLUSTER_SCRATCH_DIR } from './dask-env.js';
export { shellQuote, buildRemoteCommand, viaSh } from './remote-command.js';
export type { RemoteCommand } from './remote-command.js';

export const SCHEDULER_MODULE = 'distributed.cli.dask_scheduler';
export const WORKER_MODULE = 'distributed.cli.dask_worker';

/** With `tls`, the scheduler listens on tls:// only and presents its certificate. */
export function schedulerArgv(python: string, opts: SchedulerOptions, tls?: TlsPaths): string[] {
  const argv = [python, '-m', SCHEDULER_MODULE, '--port', String(opts.port)];
  argv.push('--dashboard-address', opts.dashboardAddress);
  if (opts.host) argv.push('--host', opts.host);
  if (opts.interface) argv.push('--interface', opts.interface);
  if (tls) argv.push(...tlsArgv(tls));
  return argv;
}

/**
 * One Dask worker process per invocation: the controller starts (and restarts, and
 * retires) worker processes itself, so `opts.nworkers` is deliberately not passed.
 */
export function workerArgv(
  python: string,
  schedulerAddress: string,
  name: string,
  opts: WorkerOptions,
  tls?: TlsPaths,
): string[] {
  const argv = [python, '-m', WORKER_MODULE, schedulerAddress];
  argv.push('--name', name, '--nworkers', '1');
  argv.push('--nthreads', String(opts.nthreads));
  argv.push('--memory-limit', opts.memoryLimit);
  const resources = formatResources(opts.resources);
  if (resources) argv.push('--resources', resources);
  argv.push(opts.nanny ? '--nanny' : '--no-nanny');
  argv.push('--death-timeout', String(opts.deathTimeoutS));
  // The nanny's and its worker's: the cluster's own directory (CLUSTER_SCRATCH_DIR).
  argv.push('--local-directory', CLUSTER_SCRATCH_DIR);
  if (opts.interface) argv.push('--interface', opts.interface);
  if (tls) argv.push(...tlsArgv(tls));
  return argv;
}

/** `{GPU: 2, FOO: 1}` → `"GPU=2 FOO=1"`, the form `dask worker --resources` splits. */
export function formatResources(resources: Record<string, number>): string {
  return Object.entries(resources)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
}
