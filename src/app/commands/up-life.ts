// The real adapters plugged into the core's life of a running cluster (cluster/life.ts),
// and what its error becomes for the user.
import type { LifePorts } from '../../cluster/life.js';
import type { ClusterSpec } from '../../config/spec.js';
import { isClientTerminate } from '../../dask/log-lines.js';
import { ExpectedError } from '../../errors.js';
import type { AppContext } from '../context.js';
import type { ClusterSession } from '../controller/cluster-session.js';
import type { ControlEndpoint } from '../controller/control-endpoint.js';
import { clustersOn } from './find-cluster.js';
import type { UpOutputs } from './up-adapters.js';
import type { UpOptions } from './up-options.js';
import type { UpPlan } from './up-prepare.js';

export function lifePorts(
  { spec }: UpPlan,
  o: {
    session: ClusterSession;
    controller: ControlEndpoint;
    outputs: UpOutputs;
    signal: AbortSignal;
    /** The state file written (start() launches nothing before). */
    written: Promise<void>;
    readyTimeoutMs: number;
    report: UpOptions['report'];
  },
): LifePorts {
  const { session, controller, outputs } = o;
  const adaptive = spec.adaptive;
  return {
    stop: o.signal,
    start: () => session.start(o.written),
    teardown: (reason) => session.teardown({ reason, force: false }),
    serve: async () => {
      await controller.start();
      const up = outputs.heldUp();
      if (up) o.report?.(up);
    },
    startAdaptive: adaptive ? () => session.startAdaptive(adaptive) : undefined,
    owedRoll: () => session.owedRoll(),
    resumeRoll: (names) => session.changes.resume(names, { maxUnavailable: 1, timeoutMs: o.readyTimeoutMs }),
    schedulerExit: () => session.schedulerExit(),
    onClientShutdown: (fn) =>
      outputs.bus.on((e) => {
        if (e.kind === 'process-line' && e.name === 'scheduler' && isClientTerminate(e.line)) fn();
      }),
    schedulerStopAsked: () => session.schedulerStopAsked(),
    emit: (e) => outputs.bus.emit(e),
  };
}

/**
 * The scheduler's port taken by another cluster of this machine (its state file says it
 * runs its scheduler there): named in the hint, as `check` does. Any other error as it is.
 */
export async function withPortHolder(ctx: AppContext, spec: ClusterSpec, err: unknown): Promise<unknown> {
  if (!(err instanceof ExpectedError) || !/port already in use/.test(err.message)) return err;
  const holder = (await clustersOn(ctx, spec.schedulerHost.connect.hostname)).find(
    (s) => s.name !== spec.name && s.spec.schedulerOptions.port === spec.schedulerOptions.port,
  )?.name;
  if (holder === undefined) return err;
  return new ExpectedError(err.message, {
    exitCode: err.exitCode,
    hint: `cluster "${holder}" of this machine runs its scheduler there (sshcluster status --name ${holder}): stop it with sshcluster down --name ${holder}, or set scheduler_options.port`,
  });
}
