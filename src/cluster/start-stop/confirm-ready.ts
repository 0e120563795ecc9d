// Start-up's last step: the scheduler itself confirms readiness, then each worker host
// is reported running or failed with the reason its workers did not register.
import type { ClusterState } from '../cluster-state.js';
import type { Clock, DaskPort, SchedulerPort } from '../ports.js';
import { SCHEDULER_NAME } from '../plan-actions.js';
import { dashboardForward, dashboardUrl } from '../../config/addresses.js';
import { ExpectedError } from '../../errors.js';
import type { ClusterEvent } from '../../events/types.js';
import { waitForScheduler, type Whose } from './readiness.js';

export interface StartupDeps {
  state: ClusterState;
  clock: Clock;
  emit(e: ClusterEvent): void;
  readyTimeoutMs: number;
  /** Aborted: stop waiting (the cluster is being stopped). */
  signal: AbortSignal;
  /** Tears the cluster down and returns the error to throw. */
  fatal(message: string, detail?: string[]): Promise<ExpectedError>;
  failHost(host: string, reason: string, detail?: string[]): void;
  /** The scheduler serves its dashboard elsewhere than configured. */
  dashboardMoved(url: string): void;
  /** The scheduler's client, before it answers: the tick and teardown use it from then on. */
  useClient(client: SchedulerPort): void;
  /** Dask's lines and the scheduler's client. */
  dask: DaskPort;
}

/** Resolves once the scheduler answers; its worker list lands in state.registered. */
export async function confirmReady(d: StartupDeps): Promise<void> {
  const { state, emit } = d;
  const { spec } = state;
  const sched = state.processes.get(SCHEDULER_NAME);
  const runner = state.runners.get(spec.schedulerHost.name);
  if (!sched || !runner) throw await d.fatal('scheduler did not start');
  const fwd = dashboardForward(spec);
  // Dask moves the dashboard to another port when the configured one is taken (with a
  // warning only); its "dashboard at:" line says where it really is.
  const dashboardSeen = (line: string) => {
    const p = d.dask.dashboardAt(line);
    if (p && p.port !== fwd.port) {
      fwd.port = p.port;
      d.dashboardMoved(
        dashboardUrl({
          ...spec,
          schedulerOptions: { ...spec.schedulerOptions, dashboardAddress: `${p.host ?? ''}:${p.port}` },
        }),
      );
      emit({
        kind: 'notice',
        level: 'warning',
        message: `the dashboard port was taken; the scheduler serves it on ${p.port}`,
      });
    }
  };
  sched.tail.forEach(dashboardSeen);
  sched.proc.onLine((_stream, line) => dashboardSeen(line));
  // The port is read at each connection: a moved dashboard is found on its new one.
  const client = d.dask.scheduler(() => runner.forwardOut(fwd.host, fwd.port));
  d.useClient(client);
  const expected = () => new Set(state.alive('worker').map((t) => t.desired.name));
  const schedulerGone = sched.proc.exited.then((e) =>
    d.dask.describeExit(e, sched.tail, spec.schedulerHost.remotePython, sched.firstError),
  );
  // A worker's "Registered to" line is news worth asking the scheduler about at once;
  // the listeners go once start-up is over.
  const unlisten: (() => void)[] = [];
  const onNews = (poke: () => void) => {
    for (const t of state.alive('worker'))
      unlisten.push(t.proc.onLine((_stream, line) => d.dask.registered(line) && poke()));
  };
  // The demand route (our preload) says which process answers, and its ancestors (a
  // remote_python wrapper may stand between ours and the scheduler); without it, unknown.
  const whose = async (): Promise<Whose> => {
    if (sched.pid === undefined) return 'pending';
    const answer = await client.demand().catch(() => undefined);
    if (answer?.pids === undefined) return 'unknown';
    return answer.pids.includes(sched.pid) ? 'ours' : 'foreign';
  };
  const onForeign = () =>
    emit({
      kind: 'notice',
      level: 'warning',
      message: `another scheduler answers at ${spec.schedulerHost.name}:${fwd.port}, not the one started (pid ${sched.pid}); waiting for it`,
    });
  const r = await waitForScheduler({
    client,
    clock: d.clock,
    expected,
    schedulerGone,
    timeoutMs: d.readyTimeoutMs,
    signal: d.signal,
    onNews,
    whose,
    onForeign,
  }).finally(() => unlisten.forEach((f) => f()));
  if (r.kind === 'stopped') throw new ExpectedError('start-up was stopped');
  if (r.kind === 'scheduler-failed')
    throw await d.fatal(`scheduler on ${spec.schedulerHost.name} failed: ${r.reason}`, [...sched.tail]);
  state.registered = new Map(r.workers.map((w) => [w.name, w.address]));
  emit({ kind: 'host-state', host: spec.schedulerHost.name, state: 'running' });
  reportWorkerHosts(d, r.kind === 'partial' ? new Set(r.missing) : new Set());
}

function reportWorkerHosts(d: StartupDeps, missing: Set<string>): void {
  const { state } = d;
  // The scheduler's host was reported running already (a local cluster's only host).
  const running = (host: string, reason?: string) =>
    host !== state.spec.schedulerHost.name && d.emit({ kind: 'host-state', host, state: 'running', reason });
  for (const h of state.spec.workerHosts) {
    if (state.failedHosts.has(h.name)) continue;
    const mine = state.all().filter((t) => t.desired.host === h.name && t.desired.role === 'worker');
    const bad = mine.find((t) => !state.registered.has(t.desired.name));
    if (mine.length > 0 && !bad) {
      running(h.name);
      continue;
    }
    // None wanted there (adaptive starting at 0, or fewer workers than hosts): not a failure.
    if (!mine.length && !state.desiredWorkers.some((w) => w.host === h.name)) {
      running(h.name, 'no worker placed here yet');
      continue;
    }
    const reason = !bad
      ? 'no worker started'
      : bad.exit
        ? `${bad.desired.name}: ${d.dask.describeExit(bad.exit, bad.tail, h.remotePython, bad.firstError)}`
        : `${bad.desired.name}: ${missing.has(bad.desired.name) ? 'did not register with the scheduler in time' : 'not registered'}`;
    d.failHost(h.name, reason, bad?.tail.slice(-8));
  }
}
