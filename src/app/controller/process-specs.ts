// argv and env of each process the reconciler starts, from the host file and dask/'s
// builders: the one place the core's DesiredProcess becomes a command line.
import type { DesiredProcess } from '../../cluster/plan-actions.js';
import type { ProcessSpec } from '../../cluster/ports.js';
import { workerHostOf, type ClusterSpec } from '../../config/spec.js';
import { schedulerArgv, schedulerEnv, workerArgv, workerEnv } from '../../dask/argv.js';
import { schedulerPreloadArgv } from '../../dask/scheduler-preload.js';
import { schedulerWaitArgv } from '../../dask/scheduler-wait.js';
import { sslPreloadArgv } from '../../dask/ssl-preload.js';
import { CLUSTER_NAME_ENV } from '../../dask/remote-command.js';
import { requireEncryptionEnv } from '../../dask/tls.js';
import { tlsPathsIn } from '../../tls/tls-files.js';
import type { SessionTls } from '../tls-setup.js';
import { schedulerPreloadPath, schedulerWaitPath } from './host-files.js';

export function processSpecs(
  /** The spec in force when each process starts (`apply` replaces it). */
  specNow: () => ClusterSpec,
  schedulerAddress: string,
  tlsFiles?: SessionTls,
): (d: DesiredProcess) => ProcessSpec | undefined {
  return (d) => {
    const spec = specNow();
    // A worker on the scheduler's host runs with its own listing's options, not the scheduler's.
    const h =
      d.role === 'scheduler'
        ? d.host === spec.schedulerHost.name
          ? spec.schedulerHost
          : undefined
        : workerHostOf(spec, d.host);
    if (!h) return undefined;
    const tlsDir = tlsFiles?.dirFor(d.host);
    const tls = tlsDir === undefined ? undefined : tlsPathsIn(tlsDir, d.role);
    const sslArgv =
      tls && tlsFiles ? sslPreloadArgv(tlsFiles.preloadFor(d.host), d.role === 'worker' && h.workerOptions.nanny) : [];
    const argv =
      d.role === 'scheduler'
        ? [
            ...schedulerArgv(h.remotePython, spec.schedulerOptions, tls),
            ...schedulerPreloadArgv(schedulerPreloadPath(spec)),
            ...sslArgv,
          ]
        : [
            ...workerArgv(h.remotePython, schedulerAddress, d.name, h.workerOptions, tls),
            ...sslArgv,
            ...schedulerWaitArgv(schedulerWaitPath(spec), h.workerOptions.nanny),
          ];
    const env = {
      ...h.env,
      ...(d.role === 'scheduler' ? schedulerEnv(adaptiveEnv(spec.adaptive?.targetDurationMs)) : workerEnv()),
      ...(tls ? requireEncryptionEnv() : {}),
      // The TLS preload is imported from the cluster's files directory: no __pycache__ there.
      ...(sslArgv.length ? { PYTHONDONTWRITEBYTECODE: '1' } : {}),
      [CLUSTER_NAME_ENV]: spec.name,
    };
    return { name: d.name, host: d.host, role: d.role, argv, env, setup: h.setup };
  };
}

/**
 * target_duration is scheduler configuration in Dask (adaptive_target's default comes
 * from distributed.adaptive.target-duration), so it is set when the scheduler starts.
 */
function adaptiveEnv(targetDurationMs: number | undefined): Record<string, string> {
  return targetDurationMs === undefined ? {} : { DASK_DISTRIBUTED__ADAPTIVE__TARGET_DURATION: `${targetDurationMs}ms` };
}
