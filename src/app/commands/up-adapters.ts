// `up`'s real adapters, built from its plan (up-prepare.ts): where events go, the metrics
// server and the cluster's certificates, the session, the control endpoint, and the
// handling of a stop (signals, `down`, q).
import { CappedLog } from '../../control/capped-log.js';
import { httpSocketPathFor, removeClusterDirIfEmpty } from '../../control/paths.js';
import { newRunId } from '../../control/log-runs.js';
import type { ClusterSpec } from '../../config/spec.js';
import type { TeardownResult } from '../../cluster/start-stop/teardown.js';
import { EventBus, type ClusterEvent } from '../../events/types.js';
import type { AppContext } from '../context.js';
import { ClusterSession } from '../controller/cluster-session.js';
import { ControlEndpoint } from '../controller/control-endpoint.js';
import { serveMetrics, type MetricsServer } from '../controller/metrics-server.js';
import type { StatusJson } from '../controller/status.js';
import { setUpTls, type SessionTls } from '../tls-setup.js';
import { shellOpener } from './shell-opener.js';
import type { UpOptions } from './up-options.js';
import { upOutput, type UpOutput } from './up-output.js';
import type { UpPlan } from './up-prepare.js';

export interface UpOutputs {
  bus: EventBus;
  out: UpOutput;
  /** The cluster-up event a detached parent has not been told yet. */
  heldUp(): ClusterEvent | undefined;
}

export function upOutputs(ctx: AppContext, opts: UpOptions, { spec, paths }: UpPlan): UpOutputs {
  const bus = new EventBus();
  // A password or passphrase prompt needs the terminal the dashboard would take.
  const tui = opts.tui !== false && !needsPrompt(spec);
  // A background controller's stdout and stderr are controller.log: capped and rotated.
  const log = opts.report ? new CappedLog(paths.controllerLog) : undefined;
  const outCtx = log ? { ...ctx, stdout: log, stderr: log } : ctx;
  const out = upOutput(outCtx, bus, spec.name, { json: opts.json, tui, detachedChild: opts.report !== undefined });
  // The parent of `up --detach` returns on cluster-up: hold it back until the control
  // socket listens and the state file has every pid (else a `status` right after finds
  // no controller, and a kill -9 right after leaves a state file a new `up` cannot adopt).
  let upEvent: ClusterEvent | undefined;
  if (opts.report) bus.on((e) => (e.kind === 'cluster-up' ? (upEvent = e) : opts.report!(e)));
  return { bus, out, heldUp: () => upEvent };
}

/** The metrics server and the cluster's certificates; a taken port or refused certificates leave nothing behind. */
export async function upServers(
  ctx: AppContext,
  opts: UpOptions,
  { spec, paths, clusterId, previous }: UpPlan,
  bus: EventBus,
  status: () => StatusJson | undefined,
): Promise<{ metrics: MetricsServer | undefined; tls: SessionTls | undefined }> {
  // Bound before anything is written: a taken port fails `up` with nothing started.
  const metrics = opts.metrics ? await serveMetrics(opts.metrics, status) : undefined;
  // Its dirs are made here; refused certificates leave none of them behind.
  const tls = await setUpTls({
    spec,
    paths,
    clusterId,
    bus,
    now: new Date(),
    adopting: previous !== undefined,
    validDays: testCertDays(ctx.env),
  }).catch(async (err: unknown) => {
    await removeClusterDirIfEmpty(paths).catch(() => undefined);
    throw err;
  });
  return { metrics, tls };
}

export function upSession(
  ctx: AppContext,
  opts: UpOptions,
  { spec, paths, clusterId, previous }: UpPlan,
  o: { bus: EventBus; tls: SessionTls | undefined; signal: AbortSignal },
): ClusterSession {
  return new ClusterSession({
    signal: o.signal,
    spec,
    clusterId,
    bus: o.bus,
    fanout: opts.fanout,
    requireAll: opts.requireAll,
    readyTimeoutMs: opts.readyTimeoutMs,
    initialWorkers: spec.adaptive && !previous ? spec.adaptive.minimum : undefined,
    openShell: shellOpener(ctx, spec),
    orphanGraceS: opts.orphanGraceS,
    previous,
    drained: previous?.drained,
    tls: o.tls,
    apiSocket: httpSocketPathFor(paths),
  });
}

export interface StopHandling {
  /** A graceful stop with its reason (`down`, q, a lost owner lease, a signal). */
  requestStop(reason: string): Promise<TeardownResult>;
  /** SIGINT or SIGTERM: the first stops gracefully, the next one forces. */
  onSignal(sig: 'SIGINT' | 'SIGTERM'): void;
}

/** The one stop of this command: aborted with its reason, so start-up's waits and the reconcile loop end with it. */
export function stopHandling(out: UpOutput, session: ClusterSession, stop: AbortController): StopHandling {
  const requestStop = (reason: string): Promise<TeardownResult> => {
    if (!stop.signal.aborted) stop.abort(reason);
    return session.teardown({ reason: stop.signal.aborted ? String(stop.signal.reason) : reason, force: false });
  };
  const onSignal = (sig: 'SIGINT' | 'SIGTERM') => {
    if (!stop.signal.aborted) {
      if (sig === 'SIGINT') out.say('Stopping gracefully; press Ctrl-C again to force.');
      void requestStop(sig === 'SIGINT' ? 'Ctrl-C' : sig);
    } else {
      out.say('Forcing: killing every process of this cluster now.');
      session.force();
    }
  };
  return { requestStop, onSignal };
}

export function controlEndpoint(
  ctx: AppContext,
  opts: UpOptions,
  { paths, clusterId, previous }: UpPlan,
  session: ClusterSession,
  requestStop: StopHandling['requestStop'],
): ControlEndpoint {
  return new ControlEndpoint(paths, {
    session,
    clusterId,
    pid: ctx.pid,
    requestStop,
    runId: previous?.runId ?? newRunId(new Date()),
    orphanGraceS: opts.orphanGraceS ?? 0,
  });
}

function needsPrompt(spec: ClusterSpec): boolean {
  const hosts = [spec.schedulerHost, ...spec.workerHosts];
  return hosts.some((h) =>
    [h.connect, ...h.connect.proxyJump].some((c) => c.password?.kind === 'prompt' || c.passphrase?.kind === 'prompt'),
  );
}

/** Tests only: certificates that end sooner (days, fractions allowed), to see the expiry warnings. */
function testCertDays(env: AppContext['env']): number | undefined {
  const days = Number(env.SSHCLUSTER_TEST_CERT_DAYS);
  return Number.isFinite(days) && days > 0 ? days : undefined;
}
