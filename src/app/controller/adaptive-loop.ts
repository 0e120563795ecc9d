// The adaptive loop: every interval, ask the scheduler for its target and its workers,
// step the pure policy (adaptive/), and apply its decision to the desired worker set:
// an absolute count up, names down. One step at a time; an error in a step is logged
// and the loop goes on. stop() (or the cluster's end) ends it, and a step still in
// flight then applies nothing.
import type { AdaptiveStatus } from '../../control/status-document.js';
import { DecisionLog } from '../../adaptive/decision-log.js';
import { adaptiveWorkers, closeOrder, newWorkerSize } from '../../adaptive/inputs.js';
import { initialAdaptiveState, step, type AdaptiveDecision, type AdaptiveState } from '../../adaptive/policy.js';
import type { AdaptiveSpec } from '../../config/spec.js';
import type { ClusterState } from '../../cluster/cluster-state.js';
import { every } from '../../cluster/clock.js';
import type { Clock, SchedulerPort } from '../../cluster/ports.js';
import type { ClusterEvent } from '../../events/types.js';

/** What the loop needs of the cluster: read its state, change its worker count. */
export interface AdaptivePort {
  state: ClusterState;
  clock: Clock;
  emit(e: ClusterEvent): void;
  scheduler(): SchedulerPort | undefined;
  daskVersion(): Promise<string>;
  /** An absolute worker count. */
  scale(n: number): Promise<unknown>;
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

  constructor(
    private readonly p: AdaptivePort,
    readonly spec: AdaptiveSpec,
  ) {}

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
      .catch((err) => this.p.emit({ kind: 'notice', level: 'warning', message: `adaptive step failed: ${String(err)}` }))
      .finally(() => (this.running = undefined));
    return this.running;
  }

  /** One step; with dryRun nothing is applied and the state is not kept. */
  async stepOnce(dryRun: boolean): Promise<{ target: number; current: number; decision: AdaptiveDecision; reason: string }> {
    const client = this.p.scheduler();
    if (!client) throw new Error('the scheduler is not reachable yet');
    const [rawTarget, identity, daskVersion] = await Promise.all([client.adaptiveTarget(), client.identityOrWorkers(), this.p.daskVersion()]);
    const { state } = this.p;
    const plan = state.desiredWorkers.map((w) => {
      const t = state.processes.get(w.name);
      return { name: w.name, launched: t !== undefined && !t.exit, nthreads: state.hostSpec(w.host)?.workerOptions.nthreads ?? 1 };
    });
    const input = {
      now: this.p.clock.now(),
      rawTarget,
      daskVersion,
      workers: adaptiveWorkers(plan, identity.workers),
      schedulerRecommends: closeOrder(plan, identity.workers),
      newWorker: newWorkerSize(state.spec.workerHosts[0]?.workerOptions),
    };
    const r = step(this.state, input, this.spec);
    const out = { target: r.log.target, current: r.log.current, decision: r.decision, reason: r.log.reason };
    if (dryRun) return out;
    // Stopped (scale N, adapt --off, new bounds) while this step waited on the scheduler:
    // its decision belongs to a loop that no longer runs.
    if (!this.enabled) return { ...out, decision: { status: 'same', reason: 'adaptive stopped' }, reason: 'adaptive stopped' };
    this.state = r.state;
    this.lastTarget = r.log.target;
    this.log.push(r.log);
    await this.apply(r.decision);
    return out;
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

  status(): AdaptiveStatus {
    const iso = (t: number) => new Date(t).toISOString();
    const entries = this.log.recent(20);
    const last = entries[entries.length - 1];
    return {
      enabled: this.enabled,
      minimum: this.spec.minimum,
      maximum: Number.isFinite(this.spec.maximum) ? this.spec.maximum : null,
      intervalMs: this.spec.intervalMs,
      waitCount: this.spec.waitCount,
      targetDurationMs: this.spec.targetDurationMs,
      target: this.lastTarget,
      lastDecision: last ? { decision: last.decision, reason: last.reason, time: iso(last.lastTime) } : null,
      log: entries.map((e) => ({ time: iso(e.time), target: e.target, current: e.current, decision: e.decision, reason: e.reason, count: e.count })),
    };
  }
}
