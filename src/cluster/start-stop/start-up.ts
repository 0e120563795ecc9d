// Start-up, in order: connect every host (bounded) and launch on each as it connects, or
// adopt what a dead controller left; the scheduler confirms readiness (confirm-ready.ts);
// --require-all and "no worker started" fail it; hosts a dead controller's apply removed
// are cleared; the dashboard is forwarded; the cluster is up and the periodic tick starts.
// Over ports: app/ hands in the connect fan-out, Dask's lines and client, the forward.
import type { Duplex } from 'node:stream';
import { dashboardForward, recordedDashboardPort } from '../../config/addresses.js';
import { ExpectedError } from '../../errors.js';
import type { ClusterEvent } from '../../events/types.js';
import type { ClusterState } from '../cluster-state.js';
import { confirmReady } from './confirm-ready.js';
import type { Clock, DaskPort, SchedulerPort } from '../ports.js';
import { readopt, type PreviousCluster } from './readopt.js';
import type { Reconciler } from '../tick/reconciler.js';

/** What start-up needs of the outside, built by app/. */
export interface StartUpPorts {
  /** Bounds how many hosts connect at once (the fan-out). */
  limit<T>(task: () => Promise<T>): Promise<T>;
  /** Any host failing fails the start-up. */
  requireAll: boolean;
  readyTimeoutMs: number;
  /** How often the reconcile loop runs on its own once up (default 2 s). */
  tickMs?: number;
  dask: DaskPort;
  /**
   * The scheduler's HTTP server on its host's loopback, forwarded to this machine (tried
   * on `ports` first); its URL here when the port could be opened.
   */
  forwardDashboard(o: { connect(): Promise<Duplex>; ports: number[] }): Promise<{ url?: string; close(): void }>;
}

export interface StartUpDeps {
  state: ClusterState;
  reconciler: Pick<Reconciler, 'links' | 'lifecycle' | 'tick' | 'startupDone' | 'every'>;
  clock: Clock;
  emit(e: ClusterEvent): void;
  /** The cluster's life: aborted, the readiness wait ends. */
  signal: AbortSignal;
  /** The scheduler's address as clients dial it. */
  address: string;
  previous?: PreviousCluster;
  ports: StartUpPorts;
  /** A re-adopted cluster's first start (ms), older than this controller. */
  startedAt(ms: number): void;
  dashboard(): string;
  dashboardMoved(url: string): void;
  useClient(client: SchedulerPort): void;
  /** The forwards opened, for teardown to close. */
  forwarded(f: { close(): void }): void;
  /** Tears the cluster down and returns the error to throw. */
  fatal(message: string, detail?: string[]): Promise<ExpectedError>;
  teardown(reason: string): Promise<unknown>;
  clearFormer(): Promise<unknown>;
}

/**
 * Resolves once the scheduler confirms readiness; throws (after cleaning up) if it cannot.
 * Hosts connect at once; no process starts (nor is adopted) before `launchAfter`
 * settles: the state file that lets `down` find them, which need not delay the handshakes.
 */
export async function startUp(d: StartUpDeps, launchAfter: Promise<void>): Promise<void> {
  const { state, reconciler, ports } = d;
  const scheduler = state.spec.schedulerHost.name;
  const connect = (h: string) => ports.limit(() => reconciler.links.connect(h));
  let adopted = 0;
  if (d.previous) {
    // What a dead controller left is adopted once every host is connected.
    await Promise.all(state.hosts().map((h) => connect(h.name)));
    await launchAfter;
    await failIfSchedulerHostFailed(d, scheduler);
    const adopt = (p: Parameters<typeof reconciler.lifecycle.adopt>[0], pid: number) =>
      reconciler.lifecycle.adopt(p, pid);
    adopted = await readopt({ state, address: d.address, emit: d.emit, adopt }, d.previous);
    if (adopted > 0) d.startedAt(Date.parse(d.previous.startedAt ?? ''));
  } else {
    // Pipelined: each host's processes start as soon as that host connects, not once
    // every host has. The scheduler's host is connected first; a worker does not wait
    // for it (its scheduler address is known beforehand, and a worker started first
    // retries until the scheduler listens: Dask starts in ~0.5 s, a worker in ~1 s).
    const launch = () => (state.failedHosts.has(scheduler) ? undefined : reconciler.tick());
    await Promise.all(
      state.hosts().map((h) =>
        connect(h.name)
          .then(() => launchAfter)
          .then(launch),
      ),
    );
  }
  await failIfSchedulerHostFailed(d, scheduler);
  await reconciler.tick();
  if (adopted) {
    const started = state.all().length - adopted;
    d.emit({
      kind: 'notice',
      level: 'info',
      message: `re-adopted ${adopted} process(es) from the state file, started ${started}`,
    });
  }
  await confirmReady({
    state,
    clock: d.clock,
    emit: d.emit,
    readyTimeoutMs: ports.readyTimeoutMs,
    signal: d.signal,
    fatal: d.fatal,
    failHost: (h, reason, detail) => reconciler.links.failHost(h, reason, detail),
    dashboardMoved: d.dashboardMoved,
    useClient: d.useClient,
    dask: ports.dask,
  });
  if (ports.requireAll && state.failedHosts.size) {
    throw await d.fatal(
      `--require-all: ${state.failedHosts.size} host(s) failed: ${[...state.failedHosts.keys()].join(', ')}`,
    );
  }
  await failIfNoWorker(d);
  // Once the scheduler answers: it retires what a removed host still runs.
  if (d.previous) await d.clearFormer();
  reconciler.startupDone();
  await forwardDashboard(d);
  d.emit({
    kind: 'cluster-up',
    name: state.spec.name,
    schedulerAddress: d.address,
    dashboardUrl: d.dashboard(),
    workers: [...state.registered].map(([name, address]) => ({ name, address })),
    failedHosts: [...state.failedHosts.keys()],
  });
  reconciler.every(ports.tickMs ?? 2_000);
}

/**
 * Workers were wanted and none registered: a failed `up` (`up --detach && python job.py`
 * stops there), and the scheduler goes too. Adaptive from 0 wants none: not a failure.
 */
async function failIfNoWorker(d: StartUpDeps): Promise<void> {
  const { state } = d;
  if (!state.desiredWorkers.length || state.registered.size) return;
  const why = [...state.failedHosts]
    .filter(([h]) => h !== state.spec.schedulerHost.name)
    .map(([h, reason]) => `  ${h}: ${reason}`);
  await d.teardown('start-up failed');
  const message = `no worker started (${state.desiredWorkers.length} wanted)${why.length ? `; failed hosts:\n${why.join('\n')}` : ''}`;
  throw new ExpectedError(message, {
    exitCode: 1,
    hint: `sshcluster check ${state.spec.source ?? 'FILE'} says what each host lacks; fix them and run up again`,
  });
}

/** Without its scheduler host there is no cluster: what started elsewhere is stopped. */
async function failIfSchedulerHostFailed(d: StartUpDeps, scheduler: string): Promise<void> {
  const why = d.state.failedHosts.get(scheduler);
  if (why !== undefined) throw await d.fatal(`scheduler host ${scheduler} failed: ${why}`);
}

/** A dashboard on the scheduler host's loopback is forwarded here (app/'s http forwards). */
async function forwardDashboard(d: StartUpDeps): Promise<void> {
  const { spec } = d.state;
  const fwd = dashboardForward(spec);
  if (spec.local || fwd.host !== '127.0.0.1') return;
  const port = Number(new URL(d.dashboard()).port) || fwd.port;
  const connect = async () => {
    const runner = d.state.runners.get(spec.schedulerHost.name);
    if (!runner) throw new Error('the scheduler host is not connected');
    return runner.forwardOut('127.0.0.1', port);
  };
  // A re-adopting controller keeps the port the dead one forwarded (a browser tab on it
  // goes on working) when it is free; else the scheduler's own port, as a first up.
  const ports = [recordedDashboardPort(d.previous?.dashboardUrl), port].filter((p) => p !== undefined);
  const forwards = await d.ports.forwardDashboard({ connect, ports });
  d.forwarded(forwards);
  if (forwards.url) d.dashboardMoved(forwards.url);
}
