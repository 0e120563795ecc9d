// Connections to hosts: one runner per host, health with reconnect back-off, and on a
// reconnect the processes of ours left from the dropped session are stopped first
// (their output went to the dead channel and their names would clash).
import type { HostSpec } from '../../config/spec.js';
import { errorText } from '../../errors.js';
import type { ClusterEvent } from '../../events/types.js';
import type { ClusterState } from '../cluster-state.js';
import type { Clock, HostRunner } from '../ports.js';

export interface HostLinkDeps {
  state: ClusterState;
  clock: Clock;
  emit(e: ClusterEvent): void;
  /** Opens a runner on the host (SSH or the local shell, built in app/). */
  connect(host: HostSpec): Promise<HostRunner>;
  /** A reconcile is wanted at this time (a reconnect's back-off ends). */
  wakeAt(at: number): void;
}

export class HostLinks {
  private readonly connecting = new Map<string, Promise<void>>();
  private closing = false;

  constructor(private readonly d: HostLinkDeps) {}

  /** Connects (or reconnects) once at a time per host; never throws. */
  connect(host: string): Promise<void> {
    let p = this.connecting.get(host);
    if (!p) {
      p = this.doConnect(host).finally(() => this.connecting.delete(host));
      this.connecting.set(host, p);
    }
    return p;
  }

  private async doConnect(host: string): Promise<void> {
    const { state, clock, emit } = this.d;
    const spec = state.hostSpec(host);
    if (!spec) return;
    const reconnect = state.health.state(host) !== undefined;
    state.health.markConnecting(host, clock.now());
    emit({ kind: 'host-state', host, state: 'connecting' });
    let runner: HostRunner | undefined;
    try {
      runner = await this.d.connect(spec);
      if (reconnect) await this.stopStale(runner);
      const kept = runner;
      state.runners.set(host, kept);
      state.unreached.delete(host);
      state.health.markUp(host, clock.now());
      state.failedHosts.delete(host);
      kept.onClose((err) => this.dropped(host, kept, err));
      runner = undefined; // kept from here on
      emit({ kind: 'host-state', host, state: reconnect ? 'running' : 'starting' });
    } catch (err) {
      runner?.close(); // a connection that failed its clean-up step is not kept
      const reason = withoutHost(host, errorText(err));
      state.health.markDown(host, clock.now(), reason);
      if (reconnect) emit({ kind: 'host-state', host, state: 'unreachable', reason });
      else this.failHost(host, reason);
    }
  }

  private dropped(host: string, runner: HostRunner, err?: Error): void {
    const { state, clock } = this.d;
    // No error: close() was called, by us (teardown closes each runner as it is done).
    if (!err || this.closing || state.runners.get(host) !== runner) return;
    state.runners.delete(host);
    const reason = withoutHost(host, errorText(err));
    const retryAt = state.health.markDown(host, clock.now(), reason);
    this.d.emit({ kind: 'host-state', host, state: 'unreachable', reason });
    this.d.wakeAt(retryAt);
  }

  private async stopStale(runner: HostRunner): Promise<void> {
    const tracked = new Set<number>();
    for (const t of this.d.state.alive()) if (t.pid !== undefined) tracked.add(t.pid);
    const stale = (await runner.listTagged()).map((p) => p.pid).filter((p) => !tracked.has(p));
    if (stale.length) {
      await runner.stopTagged(stale, { graceMs: 0 });
      this.d.emit({
        kind: 'notice',
        level: 'info',
        message: `${runner.host}: stopped ${stale.length} process(es) left from the dropped connection`,
      });
    }
  }

  /** A host that could not be used at start-up, with the reason (and its last output). */
  failHost(host: string, reason: string, detail?: string[]): void {
    this.d.state.failedHosts.set(host, reason);
    this.d.emit({ kind: 'host-state', host, state: 'failed', reason, detail });
  }

  /**
   * A host leaves the cluster (removed by `apply`) once its processes are gone: anything
   * still tagged there is stopped, the cluster's files removed, the connection closed.
   * false: not connected, so nothing there was looked at (it stays a former host).
   */
  async leave(host: string): Promise<boolean> {
    const runner = this.d.state.runners.get(host);
    this.d.state.runners.delete(host);
    this.d.state.health.forget(host);
    if (!runner) return false;
    try {
      const stray = await runner.clearUp({ graceMs: 0 });
      if (stray.left.length)
        this.d.emit({
          kind: 'notice',
          level: 'warning',
          message: `${host}: pid(s) ${stray.left.join(', ')} still running after it left the cluster`,
        });
      if (stray.filesError) this.d.emit({ kind: 'notice', level: 'warning', message: `${host}: ${stray.filesError}` });
      // Cleared: nothing is left there to remember it by (else a teardown or `down` still looks).
      if (!stray.left.length && !stray.filesError && !this.d.state.hostSpec(host)) {
        this.d.state.forgetFormer(host);
      }
    } catch (err) {
      this.d.emit({
        kind: 'notice',
        level: 'warning',
        message: `${host}: could not verify that nothing is left (${errorText(err)})`,
      });
    } finally {
      runner.close();
    }
    return true;
  }

  /** Our own close is not a host dropping: no "unreachable" reports at teardown. */
  closeAll(): void {
    this.closing = true;
    for (const r of this.d.state.runners.values()) r.close();
    this.d.state.runners.clear();
  }
}

/** SSH errors start with the host's name; the event and the status carry it already. */
function withoutHost(host: string, text: string): string {
  return text.startsWith(`${host}: `) ? text.slice(host.length + 2) : text;
}
