// The adaptive loop: every interval, ask the scheduler for its target and its workers,
// step the pure policy, and apply its decision to the controller's desired worker set.
// One step at a time; an error in a step is logged and the loop goes on.
import { DecisionLog } from '../adaptive/decision-log.js';
import { initialAdaptiveState, step, type AdaptiveDecision, type AdaptiveState, type AdaptiveWorker } from '../adaptive/policy.js';
import { parseBytes } from '../config/durations.js';
import type { AdaptiveSpec } from '../config/spec.js';
import type { WorkerIdentity } from '../dask/scheduler-json.js';
import type { ClusterSession } from './cluster-session.js';

export interface AdaptiveStatus {
  enabled: boolean;
  minimum: number;
  maximum: number | null;
  intervalMs: number;
  waitCount: number;
  targetDurationMs: number;
  target: number | null;
  lastDecision: { decision: string; reason: string; time: string } | null;
  log: { time: string; target: number; current: number; decision: string; reason: string; count: number }[];
}

export class AdaptiveLoop {
  private state: AdaptiveState = initialAdaptiveState;
  readonly log = new DecisionLog();
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private lastTarget: number | null = null;

  constructor(
    private readonly s: ClusterSession,
    readonly spec: AdaptiveSpec,
    private readonly daskVersion: () => Promise<string>,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.tick(), this.spec.intervalMs);
    this.timer.unref();
    void this.tick();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  get enabled(): boolean {
    return this.timer !== undefined;
  }

  private tick(): Promise<void> {
    this.running ??= this.stepOnce(false)
      .then(() => undefined)
      .catch((err) => this.s.bus.emit({ kind: 'notice', level: 'warning', message: `adaptive step failed: ${String(err)}` }))
      .finally(() => (this.running = undefined));
    return this.running;
  }

  /** One step; with dryRun nothing is applied and the state is not kept. */
  async stepOnce(dryRun: boolean): Promise<{ target: number; decision: AdaptiveDecision; reason: string }> {
    const client = this.s.client;
    if (!client) throw new Error('the scheduler is not reachable yet');
    const [rawTarget, identity, daskVersion] = await Promise.all([client.adaptiveTarget(), client.identityOrWorkers(), this.daskVersion()]);
    const byName = new Map(identity.workers.map((w) => [w.name, w]));
    const workers = this.s.desiredWorkers.map((w) => this.worker(w.name, w.host, byName.get(w.name)));
    const recommends = [...identity.workers]
      .filter((w) => this.s.desiredWorkers.some((d) => d.name === w.name))
      .sort((a, b) => (a.metrics?.executing ?? 0) - (b.metrics?.executing ?? 0) || (a.metrics?.memory ?? 0) - (b.metrics?.memory ?? 0))
      .map((w) => w.name);
    const r = step(this.state, { now: this.s.now(), rawTarget, daskVersion, workers, schedulerRecommends: recommends, newWorker: this.newWorker() }, this.spec);
    if (dryRun) return { target: r.log.target, decision: r.decision, reason: r.log.reason };
    // Stopped (scale N, adapt --off, new bounds) while this step waited on the scheduler:
    // its decision belongs to a loop that no longer runs.
    if (!this.enabled) return { target: r.log.target, decision: { kind: 'none', reason: 'adaptive stopped' }, reason: 'adaptive stopped' };
    this.state = r.state;
    this.lastTarget = r.log.target;
    this.log.push(r.log);
    await this.apply(r.decision);
    return { target: r.log.target, decision: r.decision, reason: r.log.reason };
  }

  private async apply(d: AdaptiveDecision): Promise<void> {
    switch (d.kind) {
      case 'up':
        await this.s.scale(this.s.desiredWorkers.length + d.add);
        return;
      case 'down':
        await this.s.retire(d.retire);
        return;
      case 'none':
        return;
    }
  }

  private worker(name: string, host: string, id: WorkerIdentity | undefined): AdaptiveWorker {
    const opts = this.s.hostSpec(host)?.workerOptions;
    const registered = id !== undefined;
    const t = this.s.table.get(name);
    return {
      name,
      registered,
      starting: !registered && t !== undefined && !t.exit,
      nthreads: id?.nthreads || opts?.nthreads || 1,
      memoryBytes: id?.memoryLimit ?? 0,
      // Without metrics (identityOrWorkers' fallback) its load is unknown: counted busy,
      // so no load-driven retirement is decided on missing data.
      busy: id !== undefined && (id.metrics === undefined || (id.metrics.executing ?? 0) > 0),
    };
  }

  private newWorker(): { nthreads: number; memoryBytes: number } {
    const h = this.s.spec.workerHosts[0];
    const limit = h?.workerOptions.memoryLimit ?? '0';
    let memoryBytes = 0;
    try {
      memoryBytes = /^\d/.test(limit) && !/^0(\.\d+)?$/.test(limit) ? parseBytes(limit) : 0;
    } catch {
      memoryBytes = 0;
    }
    return { nthreads: h?.workerOptions.nthreads ?? 1, memoryBytes };
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
