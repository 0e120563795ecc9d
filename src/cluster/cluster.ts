// One running cluster, the whole of its life in the core: its state (desired, requested,
// observed) and reconcile tick, start-up and readiness (start-up.ts), a user's scale,
// the changes (apply, drain, roll), the adaptive loop's handle, the scheduler's exit and
// teardown. It sees the world through ports app/ builds and hands in (cluster/ports.ts,
// StartUpPorts); the adaptive loop is adaptive/'s, a client of this object. Each helper
// gets the narrow dependencies it needs, never this object.
import { setMaxListeners } from 'node:events';
import { clusterHosts, type AdaptiveSpec, type ClusterSpec, type HostSpec } from '../config/spec.js';
import { ExpectedError } from '../errors.js';
import type { ClusterEvent } from '../events/types.js';
import { clearFormerOnly } from './start-stop/clear-former.js';
import { ClusterChanges, refuseWhenStopping } from './changes/cluster-changes.js';
import { ClusterState } from './cluster-state.js';
import { SCHEDULER_NAME, type DesiredProcess } from './plan-actions.js';
import type { ClearUpResult, Clock, HostRunner, ProcessSpec, SchedulerPort } from './ports.js';
import type { PreviousCluster } from './start-stop/readopt.js';
import { Reconciler } from './tick/reconciler.js';
import { keptAndDropped, type RetireStop } from './retire-hold.js';
import type { ScaleResult } from './placement/scaling.js';
import { startUp, type StartUpPorts } from './start-stop/start-up.js';
import { teardown, type TeardownOptions, type TeardownResult } from './start-stop/teardown.js';

/** The adaptive loop as the core drives it (built by app/ over this cluster). */
export interface AdaptiveHandle {
  readonly enabled: boolean;
  readonly spec: AdaptiveSpec;
  start(): void;
  stop(): void;
}

/**
 * Where a cluster is in its life: new, then starting (start()), up (start-up done), then
 * stopping (teardown begun, or the command's stop) and stopped (teardown done). Once
 * stopping, every change is refused (refuseWhenStopping).
 */
export type Phase = 'new' | 'starting' | 'up' | 'stopping' | 'stopped';

export interface ClusterPorts<L extends AdaptiveHandle> {
  spec: ClusterSpec;
  /** The scheduler's address as clients dial it. */
  address: string;
  /** The dashboard's URL as configured (start-up may move it, or forward it here). */
  dashboardUrl: string;
  clock: Clock;
  emit(e: ClusterEvent): void;
  /** Where the tick's events go (app/ keeps our preloads' start-up lines out); default emit. */
  tickEmit?(e: ClusterEvent): void;
  /** Start with this many workers instead of the host file's nworkers (adaptive start). */
  initialWorkers?: number;
  /** A dead controller's record of this cluster: adopt what of it still runs. */
  previous?: PreviousCluster;
  /** Hosts a dead controller had drained: kept out. */
  drained?: string[];
  /** The command's stop: aborted, start-up stops waiting and nothing new starts. */
  signal?: AbortSignal;
  /** A host's runner (SSH or the local shell). */
  connect(h: HostSpec): Promise<HostRunner>;
  /** argv and env of a desired process. */
  specFor(d: DesiredProcess): ProcessSpec | undefined;
  /** A keeper's line refusing an adoption, as a reason. */
  adoptRefusal?(line: string): string | undefined;
  /** Everything of the cluster on a host no runner reaches stopped, then its files removed. */
  clearHost(h: HostSpec, o: { tmpdirs: (string | undefined)[]; graceMs: number }): Promise<ClearUpResult>;
  /** An adaptive loop over this cluster, not started. */
  adaptiveLoop(spec: AdaptiveSpec): L;
  startUp: StartUpPorts;
}

export class Cluster<L extends AdaptiveHandle = AdaptiveHandle> {
  readonly state: ClusterState;
  readonly clock: Clock;
  readonly reconciler: Reconciler;
  /** The cluster's life: aborted at teardown (ticks, loops and start-up waits end). */
  private readonly life = new AbortController();
  /** A second Ctrl-C: no more grace for anything still running. */
  private readonly forced = new AbortController();
  private url: string;
  private firstStart: number;
  private scheduler?: SchedulerPort;
  private loop?: L;
  private changer?: ClusterChanges;
  private forwards?: { close(): void };
  private stopping?: Promise<TeardownResult>;
  /** The scheduler's exit was asked for by a client (schedulerStopAsked). */
  private clientStopped = false;
  /** How far start() and teardown() have got (phase). */
  private reached: 'new' | 'starting' | 'up' = 'new';
  private stopped = false;

  constructor(private readonly p: ClusterPorts<L>) {
    this.clock = p.clock;
    this.firstStart = this.clock.now();
    this.url = p.dashboardUrl;
    const state = (this.state = new ClusterState(p.spec, p.initialWorkers));
    for (const h of p.drained ?? []) state.drained.add(h);
    state.formerHosts = [...(p.previous?.formerHosts ?? [])];
    state.drainShort = p.previous?.drainShort ?? 0;
    // A cluster taken over keeps the hosts no controller has reached yet; a new one starts with all.
    for (const h of p.previous ? (p.previous.unreached ?? []) : clusterHosts(p.spec).map((x) => x.name))
      state.unreached.add(h);
    p.signal?.addEventListener('abort', () => this.life.abort(), { once: true });
    // Each process or host waits on these at once (a stop, a start-up wait), each removing
    // its listener when done: as many as the cluster has processes, which is no leak, and
    // past 10 Node would print a MaxListenersExceededWarning to the user's terminal.
    setMaxListeners(0, this.life.signal, this.forced.signal);
    this.reconciler = new Reconciler({
      state,
      clock: this.clock,
      emit: (e) => (p.tickEmit ?? p.emit)(e),
      connect: (h) => p.connect(h),
      specFor: (d) => p.specFor(d),
      adoptRefusal: p.adoptRefusal,
      scheduler: () => this.scheduler,
      signal: this.life.signal,
    });
  }

  /** The cluster's life: aborted at teardown. */
  get signal(): AbortSignal {
    return this.life.signal;
  }

  get phase(): Phase {
    if (this.stopped) return 'stopped';
    return this.life.signal.aborted ? 'stopping' : this.reached;
  }

  /** The dashboard's URL: the scheduler's, or this machine's forward of it. */
  get dashboard(): string {
    return this.url;
  }

  /** When the cluster started: for a re-adopted one, its first start, not this controller's. */
  get startedAt(): number {
    return this.firstStart;
  }

  /** The scheduler's client, once start-up has made it. */
  get client(): SchedulerPort | undefined {
    return this.scheduler;
  }

  /** The adaptive loop, when the cluster is or was adaptive; userScale() turns it off. */
  get adaptive(): L | undefined {
    return this.loop;
  }

  /** apply, drain and the rolling restart (one at a time). */
  get changes(): ClusterChanges {
    const { reconciler } = this;
    this.changer ??= new ClusterChanges({
      state: this.state,
      clock: this.clock,
      signal: this.life.signal,
      emit: (e) => this.p.emit(e),
      tick: () => reconciler.tick(),
      restartWorker: (n, o) => reconciler.restartWorker(n, o),
      outcomes: (names) => reconciler.outcomes(names),
      connect: (h) => reconciler.links.connect(h),
      leave: (h) => reconciler.links.leave(h),
      adaptive: () => (this.adaptive?.enabled ? this.adaptive.spec : undefined),
      startAdaptive: (spec) => this.startAdaptive(spec),
    });
    return this.changer;
  }

  /** Start-up (start-up.ts): resolves once the cluster is up; throws (after cleaning up) if it cannot. */
  async start(launchAfter: Promise<void> = Promise.resolve()): Promise<void> {
    this.reached = 'starting';
    await startUp(
      {
        state: this.state,
        reconciler: this.reconciler,
        clock: this.clock,
        emit: (e) => this.p.emit(e),
        signal: this.life.signal,
        address: this.p.address,
        previous: this.p.previous,
        ports: this.p.startUp,
        startedAt: (ms) => {
          if (ms <= this.firstStart) this.firstStart = ms;
        },
        dashboard: () => this.url,
        dashboardMoved: (url) => (this.url = url),
        useClient: (client) => (this.scheduler = client),
        forwarded: (f) => (this.forwards = f),
        fatal: (m, detail) => this.fatal(m, detail),
        teardown: (reason) => this.teardown({ reason, force: false }),
        clearFormer: () => this.clearFormer(),
      },
      launchAfter,
    );
    this.reached = 'up';
  }

  tick(): Promise<void> {
    return this.reconciler.tick();
  }

  /** A worker count from adaptive (or the dashboard's own rule, userScale). */
  scale(n: number, opts: { retryCrashed?: boolean } = {}): Promise<ScaleResult> {
    return this.reconciler.scale(n, opts);
  }

  /**
   * A user's `scale N` (command or dashboard): a fixed size and an adaptive loop would
   * fight, so adaptive goes off; crash-looping workers get another chance.
   */
  async userScale(n: number, opts: { force?: boolean } = {}): Promise<ScaleResult & { adaptiveOff?: true }> {
    refuseWhenStopping(this.life.signal, 'scale');
    const wasAdaptive = this.stopAdaptive();
    const was = this.state.desiredWorkers.length;
    // Workers an earlier retirement left running (held) are tried again with this one.
    const held = [...this.state.held.keys()];
    const before = this.state.desiredWorkers.map((w) => w.name);
    const sized = await this.reconciler.scale(n, { retryCrashed: true, retryHeld: true, force: opts.force === true });
    const left = new Set(this.state.desiredWorkers.map((w) => w.name));
    const outcomes = await this.reconciler.outcomes([...before.filter((w) => !left.has(w)), ...held]);
    const kept = keptAndDropped(outcomes);
    const r = {
      ...sized,
      ...(kept.held.length ? { held: kept.held } : {}),
      ...(kept.dropped.length ? { dropped: kept.dropped } : {}),
    };
    // For the events view and `status --json` events, beside adaptive's own steps.
    // The placement's explanation names the count itself ("asked for 5 workers, only 2 …").
    const short = r.desired === n ? '' : ` (${r.message ?? `${n} asked`})`;
    this.p.emit({
      kind: 'notice',
      level: 'info',
      message: `scale: ${was} → ${r.desired} worker(s)${short}${wasAdaptive ? '; adaptive is off (a fixed size)' : ''}`,
    });
    return wasAdaptive ? { ...r, adaptiveOff: true } : r;
  }

  add(adds: readonly { host: string; count: number }[]): Promise<void> {
    return this.reconciler.add(adds);
  }

  retire(names: readonly string[]): Promise<void> {
    return this.reconciler.retire(names);
  }

  async restartWorker(name: string, opts: { force?: boolean } = {}): Promise<RetireStop> {
    refuseWhenStopping(this.life.signal, 'restart');
    return this.reconciler.restartWorker(name, opts);
  }

  /**
   * The workers an interrupted `apply` had not restarted yet and still wanted: owed again,
   * and kept in state.pendingRoll (the state file) until the roll restarts them.
   */
  owedRoll(): string[] {
    const { state } = this;
    const names = (this.p.previous?.pendingRoll ?? []).filter((n) => state.desiredWorkers.some((w) => w.name === n));
    for (const n of names) state.pendingRoll.add(n);
    return names;
  }

  /** Adaptive off: the worker count stays where it is. Whether it was on. */
  stopAdaptive(): boolean {
    const was = this.loop?.enabled === true;
    this.loop?.stop();
    return was;
  }

  /** A new adaptive loop with these bounds, replacing the running one. */
  startAdaptive(spec: AdaptiveSpec): void {
    refuseWhenStopping(this.life.signal, 'adapt');
    this.state.drainShort = 0; // adaptive sizes the cluster from here on
    this.loop?.stop();
    this.loop = this.p.adaptiveLoop(spec);
    this.loop.start();
  }

  async fatal(message: string, detail: string[] = []): Promise<ExpectedError> {
    await this.teardown({ reason: 'start-up failed', force: false });
    const tail = detail.length
      ? `\n  last output:\n${detail
          .slice(-10)
          .map((l) => `    ${l}`)
          .join('\n')}`
      : '';
    return new ExpectedError(message + tail, { exitCode: 1 });
  }

  /** Idempotent: a second call gets the first call's result. */
  teardown(opts: Omit<TeardownOptions, 'forceSignal'>): Promise<TeardownResult> {
    this.life.abort();
    this.forwards?.close();
    const links = this.reconciler.links;
    const deps = {
      state: this.state,
      clock: this.clock,
      emit: (e: ClusterEvent) => this.p.emit(e),
      scheduler: () => this.client,
      closeAll: () => links.closeAll(),
      clearFormer: () => this.clearFormer(),
      startsSettled: () => this.reconciler.lifecycle.settled(),
    };
    this.stopping ??= teardown(deps, { ...opts, forceSignal: this.forced.signal }).finally(() => (this.stopped = true));
    return this.stopping;
  }

  /** A second Ctrl-C: what teardown still gives grace is killed now. */
  force(): void {
    this.forced.abort();
  }

  /**
   * A client asked the scheduler to terminate (Client.shutdown()): its exit, which follows,
   * is a stop that was asked for ("stopped", not "exited unexpectedly").
   */
  schedulerStopAsked(): void {
    const t = this.state.processes.get(SCHEDULER_NAME);
    if (!t || t.exit) return;
    t.stopping = true;
    this.clientStopped = true;
  }

  /** Resolves when the scheduler process ends for a reason other than our teardown. */
  schedulerExit(): Promise<unknown> {
    const t = this.state.processes.get(SCHEDULER_NAME);
    if (!t) return new Promise(() => {});
    return t.proc.exited.then((e) => (t.stopping && !this.clientStopped ? new Promise(() => {}) : e));
  }

  private clearFormer(): Promise<TeardownResult['leftover']> {
    return clearFormerOnly({
      state: this.state,
      emit: (e) => this.p.emit(e),
      scheduler: () => this.client,
      previous: this.p.previous,
      clearHost: (h, o) => this.p.clearHost(h, o),
    });
  }
}
