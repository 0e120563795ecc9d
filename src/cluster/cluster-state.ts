// Desired, requested and observed state of one cluster in one object, as Dask's
// SpecCluster keeps worker_spec, workers and scheduler_info apart: what we want, what
// we started (or adopted), and what the hosts and the scheduler say. Plain data and
// queries; the reconciler and its helpers change it, status and the state file read it.
import { clusterHosts, workerHostOf, type ClusterSpec, type HostSpec } from '../config/spec.js';
import { tmpdirsOn } from './changes/former-hosts.js';
import { HostHealth } from './tick/host-health.js';
import { placeWorkers, type PlacedWorker, type PlacementHost } from './placement/placement.js';
import {
  desiredProcesses,
  SCHEDULER_NAME,
  type DesiredProcess,
  type ObservedProcess,
  type Role,
} from './plan-actions.js';
import type { ExitInfo, HostRunner, RunningProcess } from './ports.js';
import { RestartSupervisor } from './tick/supervisor.js';
import { VersionedMap } from './tick/versioned-map.js';

export interface TrackedProcess {
  desired: DesiredProcess;
  proc: RunningProcess;
  /** The last output lines (TAIL_LINES), for failure reports; NO_LINES until the first. */
  tail: readonly string[];
  /**
   * The first exception line it printed ("OSError: [Errno 98] Address already in use"):
   * of a chained traceback the cause, which a long one pushes out of the tail.
   */
  firstError?: string;
  /** We are stopping it (retire, teardown): its exit is expected. */
  stopping: boolean;
  pid?: number;
  /** Set once the process has ended. */
  exit?: ExitInfo;
}

export const TAIL_LINES = 30;

/** The tail of every process that has printed nothing yet: a tail is allocated at its first line. */
export const NO_LINES: readonly string[] = Object.freeze([]);

export interface HeldWorker {
  /** Results only it holds, when the scheduler said. */
  results?: number;
  /** When it is retired again (a drain or `--force` of it: at once). */
  retryAt: number;
}

export class ClusterState {
  /**
   * Bumped by every change a reconcile plans from (see `version`): the desired workers,
   * the spec, the processes and their exit or stop, the scheduler's list, the runners,
   * the held workers. Writes that bypass the setters and maps below call changed().
   */
  private changes = 0;
  private desiredList: PlacedWorker[] = [];
  private specNow: ClusterSpec;
  private registeredNow = new Map<string, string>();
  private desiredNow?: { workers: PlacedWorker[]; scheduler: string; list: readonly DesiredProcess[] };
  /** Requested: the processes started or adopted, the latest of each name. */
  readonly processes: Map<string, TrackedProcess> = new VersionedMap(() => this.changed());
  /** Observed: a runner per connected host. */
  readonly runners: Map<string, HostRunner> = new VersionedMap(() => this.changed());
  readonly health = new HostHealth();
  readonly supervisor = new RestartSupervisor();
  /** Hosts that failed at start-up, with the reason. */
  readonly failedHosts = new Map<string, string>();
  /** Hosts taken out by `drain` (or being removed by `apply`): nothing is placed there. */
  readonly drained = new Set<string>();
  /** Workers an `apply` has yet to restart onto the spec in force (kept in the state file). */
  readonly pendingRoll = new Set<string>();
  /**
   * Workers the scheduler would not retire, results only they hold having nowhere to go:
   * they keep running though no longer desired (their host stays draining) and are
   * retired again from `retryAt` on (retire-hold.ts).
   */
  readonly held: Map<string, HeldWorker> = new VersionedMap(() => this.changed());
  /** Workers the user let go with their results (`--force`): stopped even if the scheduler keeps them. */
  readonly forced = new Set<string>();
  /**
   * Workers a fixed-size cluster is short of because `drain` found no room elsewhere:
   * started again at `undrain`; a size set anew (`scale`, `apply`, adaptive) forgets them.
   */
  drainShort = 0;
  /**
   * Host specs `apply` removed or gave another TMPDIR while something of the cluster may
   * be left under them (former-hosts.ts; kept in the state file).
   */
  formerHosts: HostSpec[] = [];
  /**
   * Hosts this cluster has never connected to (under any controller): nothing of it can
   * be there, so `down` from the state file need not reach them. Kept in the state file.
   */
  readonly unreached = new Set<string>();

  constructor(
    /** Desired: the hosts and how to launch on them; `apply` replaces it. */
    spec: ClusterSpec,
    /** Start with this many workers instead of the host file's nworkers (adaptive start). */
    initialWorkers?: number,
  ) {
    this.specNow = spec;
    this.desiredWorkers = desiredProcesses(spec)
      .filter((d) => d.role === 'worker')
      .map(({ name, host }) => ({ name, host }));
    if (initialWorkers !== undefined) {
      const hosts = spec.workerHosts.map((h) => ({ name: h.name, maxWorkers: h.maxWorkers, healthy: true }));
      this.desiredWorkers = placeWorkers(initialWorkers, hosts, []).workers;
    }
  }

  /** Desired: the workers we want (the scheduler is always wanted). Replaced whole, never edited in place. */
  get desiredWorkers(): PlacedWorker[] {
    return this.desiredList;
  }
  set desiredWorkers(ws: PlacedWorker[]) {
    this.desiredList = ws;
    this.changed();
  }

  /** Desired: the hosts and how to launch on them; `apply` replaces it. */
  get spec(): ClusterSpec {
    return this.specNow;
  }
  set spec(s: ClusterSpec) {
    this.specNow = s;
    this.changed();
  }

  /** Observed: the scheduler's worker list (name → address), refreshed every tick; replaced whole. */
  get registered(): Map<string, string> {
    return this.registeredNow;
  }
  set registered(m: Map<string, string>) {
    this.registeredNow = m;
    this.changed();
  }

  /** A process's exit or stop, or a held worker's retry time, changed in place. */
  changed(): void {
    this.changes++;
  }

  /**
   * Changes when anything a reconcile plans from may have changed (this state's, the
   * hosts' health, the restart supervisor's); equal versions: the same plan.
   */
  get version(): number {
    return this.changes + this.health.version + this.supervisor.version;
  }

  hostSpec(name: string): HostSpec | undefined {
    return name === this.spec.schedulerHost.name ? this.spec.schedulerHost : workerHostOf(this.spec, name);
  }

  /** What a worker on `host` runs with: its worker entry, also on the scheduler's host (listed twice, each listing its own options). */
  workerHostSpec(host: string): HostSpec | undefined {
    return workerHostOf(this.spec, host);
  }

  /** Every host of the cluster once, the scheduler's first. */
  hosts(): HostSpec[] {
    return clusterHosts(this.spec);
  }

  /** `host` has been cleared: nothing of it is left to remember. */
  forgetFormer(host: string): void {
    this.formerHosts = this.formerHosts.filter((h) => h.name !== host);
  }

  /** Every TMPDIR the cluster's files may be under on `host`. */
  tmpdirsOf(host: string): (string | undefined)[] {
    return tmpdirsOn(this.spec, this.formerHosts, host);
  }

  /** The scheduler and the desired workers; the same list until either changes (a tick reads it each time). */
  desired(): readonly DesiredProcess[] {
    const scheduler = this.spec.schedulerHost.name;
    const c = this.desiredNow;
    if (c?.workers === this.desiredList && c.scheduler === scheduler) return c.list;
    const list: DesiredProcess[] = [
      { name: SCHEDULER_NAME, host: scheduler, role: 'scheduler' },
      ...this.desiredList.map((w) => this.desiredWorker(w)),
    ];
    this.desiredNow = { workers: this.desiredList, scheduler, list };
    return list;
  }

  /**
   * The tracked process's own entry when it is this worker (one object, not two, a worker:
   * the list is made anew at every scale); else a new one, a literal, not `{ ...w, role }`:
   * V8 gave each spread copy a hidden class of its own (~200 bytes more a worker).
   */
  private desiredWorker(w: PlacedWorker): DesiredProcess {
    const d = this.processes.get(w.name)?.desired;
    if (d && d.host === w.host && d.role === 'worker') return d;
    return { name: w.name, host: w.host, role: 'worker' };
  }

  observed(): ObservedProcess[] {
    return this.all().map((t) => ({
      name: t.desired.name,
      host: t.desired.host,
      role: t.desired.role,
      state: t.exit ? 'exited' : t.stopping ? 'stopping' : this.registered.has(t.desired.name) ? 'running' : 'starting',
    }));
  }

  all(): TrackedProcess[] {
    return [...this.processes.values()];
  }

  /** Processes not ended, of one role or all. */
  alive(role?: Role): TrackedProcess[] {
    return this.all().filter((t) => !t.exit && (role === undefined || t.desired.role === role));
  }

  /** Connected and up (or degraded): processes can be started there. */
  usable(host: string): boolean {
    return this.runners.has(host) && this.health.isUsable(host);
  }

  /** Hosts not usable now: usually none, so nothing per host is built (a tick asks it at every plan). */
  unusable(): Set<string> {
    const out = new Set<string>();
    const { schedulerHost, workerHosts } = this.spec;
    if (!this.usable(schedulerHost.name)) out.add(schedulerHost.name);
    for (const h of workerHosts) if (!this.usable(h.name)) out.add(h.name);
    return out;
  }

  /**
   * New workers go to connected hosts whose workers are not failing: a host with a
   * crash-looping worker (degraded), one waiting out a restart back-off, or one whose
   * restarted worker has not registered yet gets none, so growth uses the other hosts.
   * (A worker that fails at launch spends most of its back-off waiting and a moment
   * running again; that moment must not make its host look healthy.)
   */
  placeable(host: string): boolean {
    return this.unavailable(host) === undefined;
  }

  /** Why nothing new can go to this host now ('drained', 'unreachable', 'degraded'), or undefined. */
  unavailable(host: string): string | undefined {
    return this.whyUnavailable(host, this.failingHosts([host]));
  }

  /** `unavailable` of every worker host at once: one pass over the workers, not one per host. */
  unavailableHosts(): Map<string, string> {
    const failing = this.failingHosts();
    const out = new Map<string, string>();
    for (const h of this.spec.workerHosts) {
      const why = this.whyUnavailable(h.name, failing);
      if (why !== undefined) out.set(h.name, why);
    }
    return out;
  }

  placementHosts(): PlacementHost[] {
    const out = this.unavailableHosts();
    return this.spec.workerHosts.map((h) => ({ name: h.name, maxWorkers: h.maxWorkers, healthy: !out.has(h.name) }));
  }

  private whyUnavailable(host: string, failing: ReadonlySet<string>): string | undefined {
    if (this.drained.has(host)) return 'drained';
    if (!this.usable(host)) return 'unreachable';
    if (this.health.state(host)?.kind === 'degraded') return 'degraded';
    return failing.has(host) ? 'degraded' : undefined;
  }

  /** Hosts (of `only`, or all) with a desired worker failing to come up. */
  private failingHosts(only?: readonly string[]): Set<string> {
    const among = only && new Set(only);
    const out = new Set<string>();
    for (const w of this.desiredWorkers) {
      if (out.has(w.host) || (among && !among.has(w.host))) continue;
      const s = this.supervisor.status(w.name);
      const failing =
        s.state === 'restarting' ||
        s.state === 'crash-looping' ||
        (s.state === 'running' && s.consecutiveFailures > 0 && !this.registered.has(w.name));
      if (failing) out.add(w.host);
    }
    return out;
  }
}
