// One running cluster, wired: the core (cluster/cluster.ts: state, reconcile tick,
// start-up, scaling, changes, teardown) with real adapters at its ports: host runners
// over SSH or the local shell, Dask's line parsers and scheduler client, the dashboard's
// forward, the system clock, the adaptive loop (adaptive/) over the core. What the cluster
// does is the core's; this object builds what it is handed and keeps the surface the
// rest of app/ calls (status, the control endpoint, the dashboard), delegating.
import type { AdaptiveSpec, ClusterSpec, HostSpec } from '../../config/spec.js';
import { dashboardUrl, schedulerAddress } from '../../config/addresses.js';
import { AdaptiveLoop } from '../../adaptive/adaptive-loop.js';
import { Cluster } from '../../cluster/cluster.js';
import type { ClusterChanges } from '../../cluster/changes/cluster-changes.js';
import type { ClusterState } from '../../cluster/cluster-state.js';
import type { Clock, DaskPort, HostRunner, SchedulerPort } from '../../cluster/ports.js';
import type { PreviousCluster } from '../../cluster/start-stop/readopt.js';
import type { RetireStop } from '../../cluster/retire-hold.js';
import type { ScaleResult } from '../../cluster/placement/scaling.js';
import type { TeardownOptions, TeardownResult } from '../../cluster/start-stop/teardown.js';
import { describeExit } from '../../dask/diagnose.js';
import { isSetupLine } from '../../dask/setup-lines.js';
import { parseKeeperRefusal, parseSchedulerLine, parseWorkerLine } from '../../dask/log-lines.js';
import { SchedulerClient, type Connector } from '../../dask/scheduler-client.js';
import type { EventBus } from '../../events/types.js';
import type { ShellPort } from '../../ssh/shell-port.js';
import { systemClock } from '../system-clock.js';
import type { SessionTls } from '../tls-setup.js';
import { clearHost } from '../transport/clear-host.js';
import { connectLimiter } from '../transport/fan-out.js';
import { ShellHostRunner } from '../transport/host-runner.js';
import { distributedVersion } from './dask-version.js';
import { EventLog } from './event-log.js';
import { keepsFilesOn, launchFiles } from './host-files.js';
import { startHttpForwards } from './http/http-forwards.js';
import { processSpecs } from './process-specs.js';
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
  /** The scheduler's HTTP API over a connector (by default the real client). */
  schedulerFor?: (connect: Connector) => SchedulerClient;
}

export class ClusterSession {
  readonly address: string;
  /** When this controller started. */
  readonly controllerStartedAt: number;
  readonly clock: Clock;
  /** The running cluster, in the core. */
  readonly core: Cluster<AdaptiveLoop>;
  private version?: Promise<string>;
  /** The scheduler's client, made by start-up (the core's client, with all of its API). */
  private scheduler?: SchedulerClient;
  /** What happened, for status and the dashboard's events view. */
  readonly events: EventLog;

  constructor(readonly o: SessionOptions) {
    this.clock = o.clock ?? systemClock;
    this.controllerStartedAt = this.clock.now();
    this.address = schedulerAddress(o.spec, o.tls ? 'tls' : 'tcp');
    this.events = new EventLog(() => this.clock.now());
    o.bus.on((e) => this.events.take(e));
    // Our preloads' start-up lines stay out of the logs unless the process fails.
    const quiet = new QuietLines(isSetupLine);
    const emit = o.bus.emit.bind(o.bus);
    this.core = new Cluster<AdaptiveLoop>({
      spec: o.spec,
      address: this.address,
      dashboardUrl: dashboardUrl(o.spec),
      clock: this.clock,
      emit,
      tickEmit: (e) => quiet.pass(e).forEach(emit),
      initialWorkers: o.initialWorkers,
      previous: o.previous,
      drained: o.drained,
      signal: o.signal,
      connect: (h) => (o.connectHost ? o.connectHost(h) : this.openRunner(h)),
      specFor: processSpecs(() => this.state.spec, this.address, o.tls),
      adoptRefusal: parseKeeperRefusal,
      clearHost: async (h, c) =>
        clearHost(await o.openShell(h), h, { ...c, clusterId: o.clusterId, keepsFiles: keepsFilesOn(this.spec) }),
      adaptiveLoop: (spec) => this.adaptiveLoop(spec),
      startUp: {
        limit: connectLimiter({ fanout: o.fanout }),
        requireAll: o.requireAll,
        readyTimeoutMs: o.readyTimeoutMs,
        tickMs: o.tickMs,
        dask: daskPort((connect) => (this.scheduler = (o.schedulerFor ?? realScheduler)(connect))),
        forwardDashboard: ({ connect, ports }) =>
          startHttpForwards({ connect, ports, apiSocket: o.apiSocket, say: emit }),
      },
    });
  }

  get state(): ClusterState {
    return this.core.state;
  }

  /** The dashboard's URL: the scheduler's, or this machine's forward of it. */
  get dashboard(): string {
    return this.core.dashboard;
  }

  /** When the cluster started: for a re-adopted one, its first start, not this controller's. */
  get startedAt(): number {
    return this.core.startedAt;
  }

  /** The scheduler's client, once start-up has made it. */
  get client(): SchedulerClient | undefined {
    return this.scheduler;
  }

  /** The adaptive loop, when the cluster is or was adaptive; userScale() turns it off. */
  get adaptive(): AdaptiveLoop | undefined {
    return this.core.adaptive;
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
    return this.core.changes;
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

  /** Start-up (cluster/start-stop/start-up.ts); `launchAfter`: the state file's first write. */
  start(launchAfter: Promise<void> = Promise.resolve()): Promise<void> {
    return this.core.start(launchAfter);
  }

  /** A user's `scale N`: adaptive goes off (cluster.ts). */
  userScale(n: number, opts: { force?: boolean } = {}): Promise<ScaleResult & { adaptiveOff?: true }> {
    return this.core.userScale(n, opts);
  }

  restartWorker(name: string, opts: { force?: boolean } = {}): Promise<RetireStop> {
    return this.core.restartWorker(name, opts);
  }

  /** The workers an interrupted `apply` owes a restart (cluster.ts). */
  owedRoll(): string[] {
    return this.core.owedRoll();
  }

  /** Adaptive off (`adapt --off`, the dashboard's key): whether it was on. */
  stopAdaptive(): boolean {
    return this.core.stopAdaptive();
  }

  /** A new adaptive loop with these bounds, replacing the running one. */
  startAdaptive(spec: AdaptiveSpec): void {
    this.core.startAdaptive(spec);
  }

  /** An adaptive loop over this cluster, not started (a dry run steps it once). */
  adaptiveLoop(spec: AdaptiveSpec): AdaptiveLoop {
    const { core } = this;
    return new AdaptiveLoop(
      {
        state: core.state,
        clock: this.clock,
        emit: (e) => this.bus.emit(e),
        scheduler: () => core.client,
        daskVersion: () => this.daskVersion(),
        scale: (n) => core.scale(n),
        add: (adds) => core.add(adds),
        retire: (names) => core.retire(names),
        signal: core.signal,
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

  /** Idempotent: a second call gets the first call's result. */
  teardown(opts: Omit<TeardownOptions, 'forceSignal'>): Promise<TeardownResult> {
    return this.core.teardown(opts);
  }

  /** A second Ctrl-C: what teardown still gives grace is killed now. */
  force(): void {
    this.core.force();
  }

  /** A client asked the scheduler to terminate (Client.shutdown()): its exit is a stop asked for. */
  schedulerStopAsked(): void {
    this.core.schedulerStopAsked();
  }

  /** Resolves when the scheduler process ends for a reason other than our teardown. */
  schedulerExit(): Promise<unknown> {
    return this.core.schedulerExit();
  }
}

const realScheduler = (connect: Connector) => new SchedulerClient(connect, { timeoutMs: 5_000 });

/** Dask's lines and scheduler client, as the core reads them (cluster/ports.ts DaskPort). */
function daskPort(scheduler: (connect: Connector) => SchedulerPort): DaskPort {
  return {
    scheduler,
    dashboardAt: (line) => {
      const p = parseSchedulerLine(line);
      return p?.kind === 'dashboard' ? { host: p.host, port: p.port } : undefined;
    },
    registered: (line) => parseWorkerLine(line)?.kind === 'registered',
    describeExit,
  };
}
