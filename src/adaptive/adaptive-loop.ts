// The adaptive loop: every interval, ask the scheduler for its target, its workers and
// its pending work by resource (the preload's demand route), step the pure policy
// (adaptive/), place its decision by resource (adaptive/resources/) and apply it to the
// desired worker set: new workers on the hosts that can run the work, names down. One step at a time; an error in a step is logged
// and the loop goes on. stop() (or the cluster's end) ends it, and a step still in
// flight then applies nothing.
import { DecisionLog } from './decision-log.js';
import { adaptiveWorkers, closeOrder } from './inputs.js';
import { newWorkerSize } from '../config/worker-size.js';
import { initialAdaptiveState, step, type AdaptiveDecision, type AdaptiveState } from './policy.js';
import { groupFloors } from './scale-down.js';
import { countsUnrunnable } from './target.js';
import type { AdaptiveSpec } from '../config/spec.js';
import type { ClusterState } from '../cluster/cluster-state.js';
import { every } from '../cluster/clock.js';
import type { Clock, SchedulerPort } from '../cluster/ports.js';
import { resourceStep, type ResourceStep } from './resources/resource-step.js';
import type { PendingGroup } from '../cluster/placement/demand.js';
import { unmetNotices, type Unmet } from './resources/unmet-notices.js';
import type { ClusterEvent } from '../events/types.js';

/** What the loop needs of the cluster: read its state, change its worker count. */
export interface AdaptivePort {
  state: ClusterState;
  clock: Clock;
  emit(e: ClusterEvent): void;
  scheduler(): SchedulerPort | undefined;
  daskVersion(): Promise<string>;
  /** An absolute worker count (a scheduler without the demand route: resource-blind). */
  scale(n: number): Promise<unknown>;
  /** New workers on these hosts (placed by resource). */
  add(adds: readonly { host: string; count: number }[]): Promise<void>;
  retire(names: readonly string[]): Promise<void>;
  /** The cluster's life: the loop ends with it. */
  signal: AbortSignal;
}

export class AdaptiveLoop {
  private state: AdaptiveState = initialAdaptiveState;
  readonly log = new DecisionLog();
  /** This loop's own life: stop() ends it, as does the cluster's. */
  private loop?: AbortController;
  private running?: Promise<void>;
  private lastTarget: number | null = null;
  /** Unmet demand by kind, as last said (said again only when it changes). */
  private unmet: ReadonlyMap<string, Unmet> = new Map();
  private blindSaid = false;
  /**
   * A worker's memory limit once known (bytes; a memory_limit of auto or a fraction is
   * known when workers register). Kept when they are gone, or memory bounds would be
   * skipped at 0 workers and met again at the first registration: a start/retire loop.
   */
  private workerMemory = 0;

  constructor(
    private readonly p: AdaptivePort,
    readonly spec: AdaptiveSpec,
  ) {}

  private newWorker(size: { nthreads: number; memoryBytes: number }): { nthreads: number; memoryBytes: number } {
    this.workerMemory = Math.max(this.workerMemory, size.memoryBytes);
    return { ...size, memoryBytes: this.workerMemory };
  }

  start(): void {
    this.loop = new AbortController();
    const both = AbortSignal.any([this.loop.signal, this.p.signal]);
    every(this.p.clock, this.spec.intervalMs, both, () => void this.tick());
    void this.tick();
  }

  stop(): void {
    this.loop?.abort();
  }

  get enabled(): boolean {
    return this.loop !== undefined && !this.loop.signal.aborted;
  }

  private tick(): Promise<void> {
    this.running ??= this.stepOnce(false)
      .then(() => undefined)
      .catch((err) =>
        this.p.emit({ kind: 'notice', level: 'warning', message: `adaptive step failed: ${String(err)}` }),
      )
      .finally(() => (this.running = undefined));
    return this.running;
  }

  /** One step; with dryRun nothing is applied and the state is not kept. */
  async stepOnce(
    dryRun: boolean,
  ): Promise<{ target: number; current: number; decision: AdaptiveDecision; reason: string }> {
    const client = this.p.scheduler();
    if (!client) throw new Error('the scheduler is not reachable yet');
    const [rawTarget, daskVersion, demand] = await Promise.all([
      client.adaptiveTarget(),
      this.p.daskVersion(),
      client.demand(),
    ]);
    // The preload's workers when it answers: identity.json is then never asked (on
    // distributed 2024.x it logs a traceback into the scheduler's log while tasks run).
    const identity = demand?.registered ? { workers: demand.registered } : await client.identityOrWorkers();
    const { state } = this.p;
    const plan = state.desiredWorkers.map((w) => {
      const t = state.processes.get(w.name);
      return {
        name: w.name,
        launched: t !== undefined && !t.exit,
        nthreads: state.workerHostSpec(w.host)?.workerOptions.nthreads ?? 1,
      };
    });
    const input = {
      now: this.p.clock.now(),
      rawTarget,
      daskVersion,
      workers: adaptiveWorkers(plan, identity.workers),
      schedulerRecommends: closeOrder(plan, identity.workers),
      newWorker: this.newWorker(newWorkerSize(state.spec.workerHosts[0]?.workerOptions, identity.workers)),
      floors: groupFloors(this.spec.groups ?? [], state.desiredWorkers),
    };
    const r = step(this.state, input, this.spec);
    const placed = demand ? this.place(r.decision, demand, countsUnrunnable(daskVersion)) : undefined;
    const reason = placed ? r.log.reason + placementNote(placed) : r.log.reason;
    const out = { target: r.log.target, current: r.log.current, decision: r.decision, reason };
    if (dryRun) return out;
    // Stopped (scale N, adapt --off, new bounds) while this step waited on the scheduler:
    // its decision belongs to a loop that no longer runs.
    if (!this.enabled)
      return { ...out, decision: { status: 'same', reason: 'adaptive stopped' }, reason: 'adaptive stopped' };
    this.state = r.state;
    this.lastTarget = r.log.target;
    // Placed by resource, the step did what placement did: an "up" with nothing placeable
    // changes nothing, and a worker placed at target is a start.
    const decision = placed ? (placed.add.length ? 'up' : placed.retire.length ? 'down' : 'none') : r.log.decision;
    this.log.push({ ...r.log, decision, reason });
    if (decision !== 'none') {
      const after = placed
        ? r.log.current + placed.add.reduce((n, a) => n + a.count, 0) - placed.retire.length
        : planAfter(r.decision, r.log.current);
      this.p.emit({ kind: 'adaptive-decision', decision, target: r.log.target, current: r.log.current, after, reason });
    }
    if (!demand) this.sayBlind();
    if (placed) {
      this.sayUnmet(placed);
      await this.applyPlaced(placed);
    } else await this.apply(r.decision);
    return out;
  }

  /** The decision placed by resource over the hosts as they are now. */
  private place(
    decision: AdaptiveDecision,
    demand: { groups: PendingGroup[]; plainPending: number },
    countsUnrunnable: boolean,
  ): ResourceStep {
    const { state } = this.p;
    const workers = state.desiredWorkers.map((w) => ({ name: w.name, host: w.host }));
    const on = new Map<string, number>();
    for (const w of workers) on.set(w.host, (on.get(w.host) ?? 0) + 1);
    const unavailable = state.unavailableHosts();
    const hosts = state.spec.workerHosts.map((h) => ({
      name: h.name,
      resources: h.workerOptions.resources,
      nthreads: h.workerOptions.nthreads,
      maxWorkers: h.maxWorkers,
      workers: on.get(h.name) ?? 0,
      ...(unavailable.has(h.name) ? { unavailable: unavailable.get(h.name) } : {}),
    }));
    const bounds = this.spec.groups?.map((g) => ({
      name: g.name,
      hosts: g.hosts,
      minimum: g.minimum,
      maximum: g.maximum,
    }));
    return resourceStep({
      decision,
      workers,
      hosts,
      groups: demand.groups,
      plainPending: demand.plainPending,
      countsUnrunnable,
      targetDurationS: this.spec.targetDurationMs / 1000,
      maximum: this.spec.maximum,
      bounds,
    });
  }

  private async applyPlaced(p: ResourceStep): Promise<void> {
    if (p.add.length) await this.p.add(p.add);
    if (p.retire.length) await this.p.retire(p.retire);
  }

  private sayUnmet(p: ResourceStep): void {
    const n = unmetNotices(this.unmet, p.unmet, this.spec.waitCount);
    this.unmet = n.current;
    for (const message of n.said) this.p.emit({ kind: 'notice', level: 'warning', message: `adaptive: ${message}` });
    for (const what of n.cleared)
      this.p.emit({ kind: 'notice', level: 'info', message: `adaptive: ${what} demand is met` });
  }

  /** A scheduler without the demand route (started without the preload): said once. */
  private sayBlind(): void {
    if (this.blindSaid) return;
    this.blindSaid = true;
    this.p.emit({
      kind: 'notice',
      level: 'warning',
      message:
        'adaptive: the scheduler does not report pending work by resource (no demand route); scaling ignores worker resources',
    });
  }

  /** Dask's shape: an absolute worker count up, names down. */
  private async apply(d: AdaptiveDecision): Promise<void> {
    switch (d.status) {
      case 'up':
        await this.p.scale(d.n);
        return;
      case 'down':
        await this.p.retire(d.workers);
        return;
      case 'same':
        return;
    }
  }

  /** The target of the last step applied (null before one). */
  get target(): number | null {
    return this.lastTarget;
  }

  /** Unmet demand as last said, one line each. */
  get unmetLines(): string[] {
    return [...this.unmet.values()].map((u) => u.line);
  }
}

/** What placement changed, for the decision log: "; placed gpu +1", "; kept w-0 (…)", "; unmet: want 1 GPU worker, …". */
function placementNote(p: ResourceStep): string {
  const parts = [
    ...(p.add.length ? [`placed ${p.add.map((a) => `${a.host} +${a.count}`).join(', ')}`] : []),
    ...p.kept.map((k) => `kept ${k.name} (${k.reason})`),
    ...p.unmet.map((u) => `unmet: ${u.line}`),
  ];
  return parts.length ? `; ${parts.join('; ')}` : '';
}

/** Workers in the plan once a policy decision is applied. */
function planAfter(d: AdaptiveDecision, current: number): number {
  return d.status === 'up' ? d.n : d.status === 'down' ? current - d.workers.length : current;
}
