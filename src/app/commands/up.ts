// Composition root of `sshcluster up`: builds the spec and the real adapters, owns the
// signal handling, serves the control socket, and keeps the cluster until Ctrl-C,
// SIGTERM, `sshcluster down` or a fatal failure.
import { randomBytes } from 'node:crypto';
import type { ClusterSpec } from '../../config/spec.js';
import { CappedLog } from '../../control/capped-log.js';
import { httpSocketPathFor, removeClusterDirIfEmpty } from '../../control/paths.js';
import { EventBus, type ClusterEvent } from '../../events/types.js';
import { adaptiveFromJson, type ClusterRecord } from '../../control/state-file.js';
import { newRunId } from '../../control/log-runs.js';
import { ClusterSession } from '../controller/cluster-session.js';
import { sessionActions } from '../controller/dashboard-actions.js';
import { upOutput } from './up-output.js';
import type { AppContext } from '../context.js';
import { mergeAdaptive } from '../../adaptive/settings.js';
import { ControlEndpoint, pathsFor } from '../controller/control-endpoint.js';
import { ExpectedError, UsageError } from '../../errors.js';
import { clustersOn, refuseIfRunning } from './find-cluster.js';
import { withFreeLocalPorts, withLocalPortsOf } from './local-ports.js';
import type { TeardownResult } from '../../cluster/teardown.js';
import { setUpTls } from '../tls-setup.js';
import { shellOpener } from './shell-opener.js';
import { diffSpecs, hasChanges } from '../../cluster/spec-diff.js';
import { serveMetrics, type MetricsAddress } from '../controller/metrics-server.js';
import { statusOf, type StatusJson } from '../controller/status.js';
import { isClientTerminate } from '../../dask/log-lines.js';
import { runLife } from '../../cluster/life.js';

/**
 * How long (s) the processes of a detached controller outlive it, waiting for an `up`
 * of the same cluster to adopt them; a foreground `up` uses 0 (they stop with it).
 */
export const DETACHED_ORPHAN_GRACE_S = 300;

export interface UpOptions {
  file?: string;
  fanout: number;
  requireAll: boolean;
  json: boolean;
  python?: string;
  name?: string;
  readyTimeoutMs: number;
  /** `--adapt [--min N --max N]`: adaptive from the start (a host file's `adaptive:` does the same). */
  adapt?: { minimum?: number; maximum?: number };
  /** Set in the background controller of `up --detach`: events also go to the parent. */
  report?: (e: ClusterEvent) => void;
  /** Seconds our processes outlive this controller, waiting for a new one (0: none). */
  orphanGraceS?: number;
  /** false with --no-tui; the dashboard also needs a terminal (dashboardWanted). */
  tui?: boolean;
  /** --security: overrides the host file's `security:` (the local cluster's way to opt in). */
  security?: 'tls' | 'none';
  /** --metrics: where the controller serves GET /metrics. */
  metrics?: MetricsAddress;
  /** The spec, already loaded and checked (by the parent of a background controller). */
  spec?: ClusterSpec;
}

export async function runUp(ctx: AppContext, opts: UpOptions): Promise<number> {
  // `up | head -1` must not orphan the cluster's processes: it runs on, unseen, until
  // Ctrl-C or `down`.
  ctx.onReaderGone();
  // A background controller has its spec from the `up --detach` that started it.
  const given = opts.spec ?? (await import('./cluster-spec.js')).loadSpec(ctx, opts.file, opts.python, opts.security);
  const name = opts.name ?? given.name;
  const paths = pathsFor(ctx, name);
  // A dead controller's processes keep its cluster id: adopting them needs it.
  const previous = await refuseIfRunning(
    paths,
    name,
    opts.file === undefined ? undefined : { path: opts.file, spec: given },
  );
  const bus = new EventBus();
  // A local cluster re-adopts on the ports it had (its scheduler may still hold them).
  const kept = given.local ? undefined : runningSpec(given, previous);
  const local = given.local
    ? previous
      ? withLocalPortsOf(given, previous.spec)
      : await withFreeLocalPorts(given)
    : (kept ?? given);
  const spec = withAdaptive(carryAdaptive({ ...local, name }, previous), opts.adapt);
  const clusterId = previous?.clusterId ?? randomBytes(8).toString('hex');
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
  if (spec.local) {
    const { adaptive } = spec;
    const workers = adaptive
      ? `adaptive, ${adaptive.minimum} to ${Number.isFinite(adaptive.maximum) ? adaptive.maximum : 'any number of'}`
      : (previous?.desiredWorkers ?? spec.workerHosts[0]?.workerOptions.nworkers ?? 0); // re-adopted: the size it was kept at
    bus.emit({
      kind: 'notice',
      level: 'info',
      message: `Local cluster on this machine (${workers} workers, python ${spec.schedulerHost.remotePython})`,
    });
  }
  // Bound before anything is written: a taken port fails `up` with nothing started.
  let statusNow: (() => StatusJson) | undefined;
  const metrics = opts.metrics ? await serveMetrics(opts.metrics, () => statusNow?.()) : undefined;
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

  // The one stop of this command (Ctrl-C, SIGTERM, `down`, q): aborted with its reason,
  // and passed down so that start-up's waits and the reconcile loop end with it.
  const stop = new AbortController();
  const stopReason = (fallback: string) => (stop.signal.aborted ? String(stop.signal.reason) : fallback);
  const session = new ClusterSession({
    signal: stop.signal,
    spec,
    clusterId,
    bus,
    fanout: opts.fanout,
    requireAll: opts.requireAll,
    readyTimeoutMs: opts.readyTimeoutMs,
    initialWorkers: spec.adaptive && !previous ? spec.adaptive.minimum : undefined,
    openShell: shellOpener(ctx, spec),
    orphanGraceS: opts.orphanGraceS,
    previous,
    drained: previous?.drained,
    tls,
    apiSocket: httpSocketPathFor(paths),
  });

  statusNow = () => statusOf(session, clusterId, ctx.pid);
  const requestStop = (reason: string): Promise<TeardownResult> => {
    if (!stop.signal.aborted) stop.abort(reason);
    return session.teardown({ reason: stopReason(reason), force: false });
  };
  const runId = previous?.runId ?? newRunId(new Date());
  const controller = new ControlEndpoint(paths, {
    session,
    clusterId,
    pid: ctx.pid,
    requestStop,
    runId,
    orphanGraceS: opts.orphanGraceS ?? 0,
  });
  // The state file exists before any process does, so `down` can always find them: the
  // hosts connect while it is written, and start() launches nothing until it is (nor
  // before the log store that records the processes' lines is open). A dead
  // controller's file stays as it is until its processes are adopted.
  if (previous)
    bus.emit({
      kind: 'notice',
      level: 'info',
      message: `the controller of "${spec.name}" (pid ${previous.controller?.pid ?? '?'}) is gone; adopting what it left running`,
    });
  // Said once the output (and a detached parent) listens.
  if (kept)
    bus.emit({
      kind: 'notice',
      level: 'warning',
      message: `the host file differs from the spec the running processes have; keeping theirs (sshcluster plan ${opts.file ?? 'FILE'} shows the difference, apply makes it)`,
    });
  const written = (previous ? Promise.resolve() : controller.save()).then(() => controller.recordLogs());
  const onStopSignal = (sig: 'SIGINT' | 'SIGTERM') => {
    if (!stop.signal.aborted) {
      if (sig === 'SIGINT') out.say('Stopping gracefully; press Ctrl-C again to force.');
      void requestStop(sig === 'SIGINT' ? 'Ctrl-C' : sig);
    } else {
      out.say('Forcing: killing every process of this cluster now.');
      session.force();
    }
  };
  const off = ctx.onSignal(onStopSignal);
  out.open(
    sessionActions(session, {
      clusterId,
      pid: ctx.pid,
      teardown: () => requestStop('q in the dashboard'),
      interrupt: () => onStopSignal('SIGINT'),
    }),
  );

  let result: TeardownResult | undefined;
  try {
    const end = await runLife({
      stop: stop.signal,
      start: () => session.start(written),
      teardown: (reason) => session.teardown({ reason, force: false }),
      serve: async () => {
        await controller.start();
        if (upEvent) opts.report?.(upEvent);
      },
      startAdaptive: spec.adaptive ? () => session.startAdaptive(spec.adaptive!) : undefined,
      owedRoll: () => owedRoll(session, previous),
      resumeRoll: (names) => session.changes.resume(names, { maxUnavailable: 1, timeoutMs: opts.readyTimeoutMs }),
      schedulerExit: () => session.schedulerExit(),
      onClientShutdown: (fn) =>
        bus.on((e) => {
          if (e.kind === 'process-line' && e.name === 'scheduler' && isClientTerminate(e.line)) fn();
        }),
      schedulerStopAsked: () => session.schedulerStopAsked(),
      emit: (e) => bus.emit(e),
    });
    result = end.result;
    if (end.kind === 'error') throw await withPortHolder(ctx, spec, end.error);
    return end.code;
  } finally {
    await metrics?.close();
    off();
    out.close();
    await written; // never rejects: a failed write is a warning
    await controller.close(result !== undefined && result.leftover.length === 0);
  }
}

/**
 * The scheduler's port taken by another cluster of this machine (its state file says it
 * runs its scheduler there): named in the hint, as `check` does. Any other error as it is.
 */
async function withPortHolder(ctx: AppContext, spec: ClusterSpec, err: unknown): Promise<unknown> {
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

/**
 * A re-adopting controller keeps the spec its processes were started with: a host file
 * changed since is for `plan`/`apply`, not a reason to adopt processes under another
 * spec. That spec when the file differs, else undefined (the file's is used).
 */
function runningSpec(given: ClusterSpec, previous: ClusterRecord | undefined): ClusterSpec | undefined {
  if (
    !previous ||
    !hasChanges(
      diffSpecs(previous.spec, { ...given, name: previous.spec.name, adaptive: previous.spec.adaptive }, [], false),
    )
  )
    return undefined;
  return { ...previous.spec, adaptive: given.adaptive ?? previous.spec.adaptive };
}

/** The workers an interrupted `apply` had not restarted yet, owed again (state.pendingRoll). */
function owedRoll(session: ClusterSession, previous: ClusterRecord | undefined): string[] {
  const names = (previous?.pendingRoll ?? []).filter((n) => session.state.desiredWorkers.some((w) => w.name === n));
  for (const n of names) session.state.pendingRoll.add(n);
  return names;
}

/**
 * A restarted controller goes on as the dead one did: adaptive with the settings last
 * given (with `adapt` too), or at a fixed size if adaptive had been turned off.
 */
function carryAdaptive(spec: ClusterSpec, previous: ClusterRecord | undefined): ClusterSpec {
  if (previous?.adaptive === undefined) return spec;
  const { adaptive: _fromFile, ...rest } = spec;
  return previous.adaptive ? { ...rest, adaptive: adaptiveFromJson(previous.adaptive) } : rest;
}

/** The cluster is adaptive from the start with --adapt or an `adaptive:` section. */
function withAdaptive(spec: ClusterSpec, flags: UpOptions['adapt']): ClusterSpec {
  if (!flags && !spec.adaptive) return spec;
  const adaptive = mergeAdaptive(spec.adaptive, flags ?? {});
  if (adaptive.minimum > adaptive.maximum)
    throw new UsageError(`--min ${adaptive.minimum} is above --max ${adaptive.maximum}`);
  return { ...spec, adaptive };
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
