// One running cluster, wired: the core's state and reconciler (cluster/) with real
// adapters at its ports (host runners over SSH or the local shell, the scheduler's HTTP
// client, the system clock), start-up, the adaptive loop, the dashboard forward and
// teardown. Each helper gets the narrow port it needs, never this object.
// Over 200 lines because it is the composition root of a running cluster (start-up
// order, adaptive, teardown); every piece it wires lives in its own file.
import { setMaxListeners } from 'node:events';
import { clusterHosts, type ClusterSpec, type HostSpec } from '../../config/spec.js';
import type { AdaptiveSpec } from '../../config/spec.js';
import { ClusterState } from '../../cluster/cluster-state.js';
import { SCHEDULER_NAME } from '../../cluster/plan-actions.js';
import type { Clock, HostRunner } from '../../cluster/ports.js';
import { readopt, STRAY_GRACE_MS, type PreviousCluster } from '../../cluster/readopt.js';
import { Reconciler } from '../../cluster/reconciler.js';
import { keptAndDropped, type RetireStop } from '../../cluster/retire-hold.js';
import type { ScaleResult } from '../../cluster/scaling.js';
import { teardown, type TeardownOptions, type TeardownResult } from '../../cluster/teardown.js';
import type { SchedulerClient } from '../../dask/scheduler-client.js';
import { errorText, ExpectedError } from '../../errors.js';
import type { EventBus } from '../../events/types.js';
import { parseKeeperRefusal } from '../../dask/log-lines.js';
import { connectLimiter } from '../transport/fan-out.js';
import { ShellHostRunner } from '../transport/host-runner.js';
import type { ShellPort } from '../../ssh/shell-port.js';
import { AdaptiveLoop } from '../../adaptive/adaptive-loop.js';
import { dashboardForward, dashboardUrl, recordedDashboardPort, schedulerAddress } from './addresses.js';
import { startHttpForwards, type HttpForwards } from './http/http-forwards.js';
import { processSpecs } from './process-specs.js';
import { confirmReady, type StartupDeps } from './start-up.js';
import type { SessionTls } from '../tls-setup.js';
import { distributedVersion } from './dask-version.js';
import { systemClock } from '../system-clock.js';
import { keepsFilesOn, launchFiles } from './host-files.js';
import { clearHost } from '../transport/clear-host.js';
import { hostsToClear } from '../../cluster/former-hosts.js';
import { ClusterChanges } from '../../cluster/cluster-changes.js';
import { EventLog } from './event-log.js';
import { isSetupLine } from '../../dask/setup-lines.js';
import { QuietLines } from './quiet-lines.js';

export interface SessionOptions {
  spec: ClusterSpec;
  clusterId: string;
  bus: EventBus;
  fanout: number;
  requireAll: boolean;
  readyTimeoutMs: number;
  openShell(host: HostSpec): Promise<ShellPort>;
  clock?: Clock;
  /** Start with this many workers instead of the host file's nworkers (adaptive start). */
  initialWorkers?: number;
  /** How often the reconcile loop runs on its own after start-up. */
  tickMs?: number;
  /** Seconds our processes wait to be adopted after this controller dies (0: none). */
  orphanGraceS?: number;
  /** A dead controller's record of this cluster: adopt what of it still runs. */
  previous?: PreviousCluster;
  /** Hosts a dead controller had drained: kept out. */
  drained?: string[];
  /** Set when the processes talk mutual TLS: the files each host's processes are given, and their paths. */
  tls?: SessionTls;
  /** The command's stop: aborted, start-up stops waiting and nothing new starts. */
  signal?: AbortSignal;
  /** Where the owner-only socket to the scheduler's HTTP server goes (none: not opened). */
  apiSocket?: string;
  /** A host's runner (the core's HostRunner port); by default one over openShell. */
  connectHost?: (h: HostSpec) => Promise<HostRunner>;
  /** The scheduler's HTTP API over a connector (start-up.ts has the real one). */
  schedulerFor?: StartupDeps['schedulerFor'];
}

export class ClusterSession {
  readonly address: string;
  private url: string;
  private firstStart: number;
  /** When this controller started. */
  readonly controllerStartedAt: number;
  readonly state: ClusterState;
  readonly clock: Clock;
  private scheduler?: SchedulerClient;
  private loop?: AdaptiveLoop;
  private readonly reconciler: Reconciler;
  /** The cluster's life: aborted at teardown (ticks, loops and start-up waits end). */
  private readonly life = new AbortController();
  /** A second Ctrl-C: no more grace for anything still running. */
  private readonly forced = new AbortController();
  private stopping?: Promise<TeardownResult>;
  /** The scheduler's exit was asked for by a client (schedulerStopAsked). */
  private clientStopped = false;
  private version?: Promise<string>;
  private changer?: ClusterChanges;
  /** What happened, for status and the dashboard's events view. */
  readonly events: EventLog;

  constructor(readonly o: SessionOptions) {
    this.clock = o.clock ?? systemClock;
    this.controllerStartedAt = this.clock.now();
    this.firstStart = this.controllerStartedAt;
    this.address = schedulerAddress(o.spec, o.tls ? 'tls' : 'tcp');
    this.url = dashboardUrl(o.spec);
    this.state = new ClusterState(o.spec, o.initialWorkers);
    for (const h of o.drained ?? []) this.state.drained.add(h);
    this.state.formerHosts = [...(o.previous?.formerHosts ?? [])];
    this.state.drainShort = o.previous?.drainShort ?? 0;
    // A cluster taken over keeps the hosts no controller has reached yet; a new one starts with all.
    for (const h of o.previous ? (o.previous.unreached ?? []) : clusterHosts(o.spec).map((x) => x.name))
      this.state.unreached.add(h);
    this.events = new EventLog(() => this.clock.now());
    o.bus.on((e) => this.events.take(e));
    o.signal?.addEventListener('abort', () => this.life.abort(), { once: true });
    // Each process or host waits on these at once (a stop, a start-up wait), each removing
    // its listener when done: as many as the cluster has processes, which is no leak, and
    // past 10 Node would print a MaxListenersExceededWarning to the user's terminal.
    setMaxListeners(0, this.life.signal, this.forced.signal);
    // Our preloads' start-up lines stay out of the logs unless the process fails.
    const quiet = new QuietLines(isSetupLine);
    this.reconciler = new Reconciler({
      state: this.state,
      clock: this.clock,
      emit: (e) => quiet.pass(e).forEach((x) => this.bus.emit(x)),
      connect: (h) => (o.connectHost ? o.connectHost(h) : this.openRunner(h)),
      specFor: processSpecs(() => this.state.spec, this.address, o.tls),
      adoptRefusal: parseKeeperRefusal,
      scheduler: () => this.client,
      signal: this.life.signal,
    });
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
  get client(): SchedulerClient | undefined {
    return this.scheduler;
  }

  /** The adaptive loop, when the cluster is or was adaptive; userScale() turns it off. */
  get adaptive(): AdaptiveLoop | undefined {
    return this.loop;
  }

  get bus(): EventBus {
    return this.o.bus;
  }

  /** The spec in force (`apply` replaces it). */
  get spec(): ClusterSpec {
    return this.state.spec;
  }

  /** apply, drain and the rolling restart (one at a time). */
  get changes(): ClusterChanges {
    const reconciler = this.reconciler;
    this.changer ??= new ClusterChanges({
      state: this.state,
      clock: this.clock,
      signal: this.life.signal,
      emit: (e) => this.bus.emit(e),
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

  now(): number {
    return this.clock.now();
  }

  /** A host's runner: each process it starts is given the files the cluster keeps there. */
  private async openRunner(h: HostSpec): Promise<HostRunner> {
    const shell = await this.o.openShell(h);
    const { clusterId, orphanGraceS } = this.o;
    const files = launchFiles(this.spec, this.o.tls, h);
    const tmpdirs = () => this.state.tmpdirsOf(h.name);
    const keepsFiles = keepsFilesOn(this.spec);
    return new ShellHostRunner({
      host: h.name,
      clusterId,
      setup: h.setup,
      shell,
      orphanGraceS,
      python: h.remotePython,
      env: h.env,
      files,
      keepsFiles,
      tmpdirs,
      commandTimeoutMs: h.connect.commandTimeoutMs,
    });
  }

  /**
   * The hosts an `apply` removed and had yet to leave, with no runner here (a dead
   * controller's): their workers retired through the scheduler (data moved), then the
   * host cleared, as its leave would have. Returns those it could not clear, which stay
   * in the state file for `down`.
   */
  private async clearFormerOnly(): Promise<TeardownResult['leftover']> {
    const { state } = this;
    const gone = hostsToClear(state.spec, state.formerHosts).filter(
      (h) => !state.hostSpec(h.name) && !state.runners.has(h.name),
    );
    const left: TeardownResult['leftover'] = [];
    await Promise.all(
      gone.map(async (h) => {
        try {
          await this.retireOn(h.name);
          const opts = {
            clusterId: this.o.clusterId,
            keepsFiles: keepsFilesOn(this.spec),
            tmpdirs: state.tmpdirsOf(h.name),
            graceMs: STRAY_GRACE_MS,
          };
          const r = await clearHost(await this.o.openShell(h), h, opts);
          if (r.left.length || r.filesError)
            throw new Error(r.filesError ?? `pid(s) ${r.left.join(', ')} still running`);
          state.forgetFormer(h.name);
          this.bus.emit({
            kind: 'notice',
            level: 'info',
            message: `${h.name} left the cluster (an interrupted apply had removed it)`,
          });
        } catch (err) {
          left.push({ host: h.name, pids: [] });
          this.bus.emit({
            kind: 'notice',
            level: 'warning',
            message: `${h.name}: could not clear what an interrupted apply left there (${errorText(err)}); \`sshcluster down\` tries again`,
          });
        }
      }),
    );
    return left;
  }

  /**
   * The workers the scheduler still has on `host`, retired (data moved; kept until their
   * stop, as scale-down's). A SIGTERM alone lets a worker retire itself only if its close
   * gets that far within the grace.
   */
  private async retireOn(host: string): Promise<void> {
    const names = (this.o.previous?.processes ?? [])
      .filter((p) => p.host === host && p.role === 'worker')
      .map((p) => p.name);
    const addresses = names.flatMap((n) => this.state.registered.get(n) ?? []);
    if (!addresses.length || !this.client) return;
    await this.client.retireWorkers(addresses, { keep: true }).catch((err: unknown) => {
      this.bus.emit({
        kind: 'notice',
        level: 'warning',
        message: `${host}: retiring its workers through the scheduler failed (${errorText(err)}); stopping them directly`,
      });
    });
  }

  /**
   * Resolves once the scheduler confirms readiness; throws (after cleaning up) if it cannot.
   * Hosts connect at once; no process starts (nor is adopted) before `launchAfter`
   * settles: the state file that lets `down` find them, which need not delay the handshakes.
   */
  async start(launchAfter: Promise<void> = Promise.resolve()): Promise<void> {
    const { state, reconciler } = this;
    const limit = connectLimiter({ fanout: this.o.fanout });
    const scheduler = this.spec.schedulerHost.name;
    const connect = (h: string) => limit(() => reconciler.links.connect(h));
    let adopted = 0;
    if (this.o.previous) {
      // What a dead controller left is adopted once every host is connected.
      await Promise.all(state.hosts().map((h) => connect(h.name)));
      await launchAfter;
      await this.failIfSchedulerHostFailed(scheduler);
      const adopt = (p: Parameters<typeof reconciler.lifecycle.adopt>[0], pid: number) =>
        reconciler.lifecycle.adopt(p, pid);
      adopted = await readopt({ state, address: this.address, emit: (e) => this.bus.emit(e), adopt }, this.o.previous);
      const before = Date.parse(this.o.previous.startedAt ?? '');
      if (adopted > 0 && before <= this.firstStart) this.firstStart = before;
    } else {
      // Pipelined: each host's processes start as soon as that host connects, not once
      // every host has. The scheduler's host is connected first; a worker does not wait
      // for it (its scheduler address is known beforehand, and a worker started first
      // retries until the scheduler listens: Dask starts in ~0.5 s, a worker in ~1 s).
      const launch = () => (state.failedHosts.has(scheduler) ? undefined : this.tick());
      await Promise.all(
        state.hosts().map((h) =>
          connect(h.name)
            .then(() => launchAfter)
            .then(launch),
        ),
      );
    }
    await this.failIfSchedulerHostFailed(scheduler);
    await this.tick();
    if (adopted) {
      const started = state.all().length - adopted;
      this.bus.emit({
        kind: 'notice',
        level: 'info',
        message: `re-adopted ${adopted} process(es) from the state file, started ${started}`,
      });
    }
    await confirmReady({
      state,
      clock: this.clock,
      emit: (e) => this.bus.emit(e),
      readyTimeoutMs: this.o.readyTimeoutMs,
      signal: this.life.signal,
      fatal: (m, detail) => this.fatal(m, detail),
      failHost: (h, reason, detail) => reconciler.links.failHost(h, reason, detail),
      dashboardMoved: (url) => (this.url = url),
      useClient: (client) => (this.scheduler = client),
      schedulerFor: this.o.schedulerFor,
    });
    if (this.o.requireAll && state.failedHosts.size) {
      throw await this.fatal(
        `--require-all: ${state.failedHosts.size} host(s) failed: ${[...state.failedHosts.keys()].join(', ')}`,
      );
    }
    await this.failIfNoWorker();
    // Once the scheduler answers: it retires what a removed host still runs.
    if (this.o.previous) await this.clearFormerOnly();
    reconciler.startupDone();
    await this.forwardDashboard();
    this.bus.emit({
      kind: 'cluster-up',
      name: this.spec.name,
      schedulerAddress: this.address,
      dashboardUrl: this.dashboard,
      workers: [...state.registered].map(([name, address]) => ({ name, address })),
      failedHosts: [...state.failedHosts.keys()],
    });
    reconciler.every(this.o.tickMs ?? 2_000);
  }

  private httpForwards?: HttpForwards;

  /**
   * Workers were wanted and none registered: a failed `up` (`up --detach && python job.py`
   * stops there), and the scheduler goes too. Adaptive from 0 wants none: not a failure.
   */
  private async failIfNoWorker(): Promise<void> {
    const { state } = this;
    if (!state.desiredWorkers.length || state.registered.size) return;
    const why = [...state.failedHosts]
      .filter(([h]) => h !== this.spec.schedulerHost.name)
      .map(([h, reason]) => `  ${h}: ${reason}`);
    await this.teardown({ reason: 'start-up failed', force: false });
    const message = `no worker started (${state.desiredWorkers.length} wanted)${why.length ? `; failed hosts:\n${why.join('\n')}` : ''}`;
    throw new ExpectedError(message, {
      exitCode: 1,
      hint: `sshcluster check ${this.spec.source ?? 'FILE'} says what each host lacks; fix them and run up again`,
    });
  }

  /** Without its scheduler host there is no cluster: what started elsewhere is stopped. */
  private async failIfSchedulerHostFailed(scheduler: string): Promise<void> {
    const why = this.state.failedHosts.get(scheduler);
    if (why !== undefined) throw await this.fatal(`scheduler host ${scheduler} failed: ${why}`);
  }

  /** A dashboard on the scheduler host's loopback is forwarded here (see http-forwards.ts). */
  private async forwardDashboard(): Promise<void> {
    const fwd = dashboardForward(this.spec);
    if (this.spec.local || fwd.host !== '127.0.0.1') return;
    const port = Number(new URL(this.dashboard).port) || fwd.port;
    const connect = async () => {
      const runner = this.state.runners.get(this.spec.schedulerHost.name);
      if (!runner) throw new Error('the scheduler host is not connected');
      return runner.forwardOut('127.0.0.1', port);
    };
    // A re-adopting controller keeps the port the dead one forwarded (a browser tab on it
    // goes on working) when it is free; else the scheduler's own port, as a first up.
    const ports = [recordedDashboardPort(this.o.previous?.dashboardUrl), port].filter((p) => p !== undefined);
    this.httpForwards = await startHttpForwards({
      connect,
      ports,
      apiSocket: this.o.apiSocket,
      say: (e) => this.bus.emit(e),
    });
    if (this.httpForwards.url) this.url = this.httpForwards.url;
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
    const wasAdaptive = this.adaptive?.enabled === true;
    this.adaptive?.stop();
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
    const short = r.desired === n ? '' : ` (${n} asked${r.message ? `: ${r.message}` : ''})`;
    this.bus.emit({
      kind: 'notice',
      level: 'info',
      message: `scale: ${was} → ${r.desired} worker(s)${short}${wasAdaptive ? '; adaptive is off (a fixed size)' : ''}`,
    });
    return wasAdaptive ? { ...r, adaptiveOff: true } : r;
  }

  retire(names: readonly string[]): Promise<void> {
    return this.reconciler.retire(names);
  }

  restartWorker(name: string, opts: { force?: boolean } = {}): Promise<RetireStop> {
    return this.reconciler.restartWorker(name, opts);
  }

  /** A new adaptive loop with these bounds, replacing the running one. */
  startAdaptive(spec: AdaptiveSpec): void {
    this.state.drainShort = 0; // adaptive sizes the cluster from here on
    this.loop?.stop();
    this.loop = this.adaptiveLoop(spec);
    this.loop.start();
  }

  /** An adaptive loop over this cluster, not started (a dry run steps it once). */
  adaptiveLoop(spec: AdaptiveSpec): AdaptiveLoop {
    return new AdaptiveLoop(
      {
        state: this.state,
        clock: this.clock,
        emit: (e) => this.bus.emit(e),
        scheduler: () => this.client,
        daskVersion: () => this.daskVersion(),
        scale: (n) => this.scale(n),
        add: (adds) => this.reconciler.add(adds),
        retire: (names) => this.retire(names),
        signal: this.life.signal,
      },
      spec,
    );
  }

  /** distributed.__version__ on the scheduler host, asked once. */
  daskVersion(): Promise<string> {
    this.version ??= distributedVersion(this.spec.schedulerHost, this.state.runners.get(this.spec.schedulerHost.name));
    this.version.catch(() => (this.version = undefined));
    return this.version;
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
    this.httpForwards?.close();
    const links = this.reconciler.links;
    const deps = {
      state: this.state,
      clock: this.clock,
      emit: this.bus.emit.bind(this.bus),
      scheduler: () => this.client,
      closeAll: () => links.closeAll(),
      clearFormer: () => this.clearFormerOnly(),
    };
    this.stopping ??= teardown(deps, { ...opts, forceSignal: this.forced.signal });
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
}
