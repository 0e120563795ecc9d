// What happened to the cluster, newest last, for `status --json` (events[]) and the
// dashboard's events view: hosts lost and back, workers that died or were restarted
// (ours, and the nanny's own restarts of its worker process, which our process table
// never sees), and the controller's warnings and decisions. Bounded.
import type { ClusterEvent } from '../../events/types.js';
import { decisionText, exitText } from '../../events/plain-sink.js';
import { parseWorkerLine } from '../../dask/log-lines.js';
import type { ClusterStatusEvent } from '../../control/status-document.js';

export const EVENT_LOG_SIZE = 100;

export class EventLog {
  private readonly items: ClusterStatusEvent[] = [];
  private readonly lastDeath = new Map<string, string>();
  /** Workers a client's restart() is closing: their nanny's restart is no death. */
  private readonly askedRestart = new Set<string>();
  /** Hosts last seen unreachable: their next 'running' is a reconnect. */
  private readonly down = new Set<string>();
  /** Per worker name: worker processes its nanny restarted (KilledWorker comes from these). */
  readonly nannyRestarts = new Map<string, number>();

  constructor(private readonly now: () => number) {}

  /** Feed it every bus event. */
  take(e: ClusterEvent): void {
    const item = this.noteOf(e);
    if (!item) return;
    this.items.push({ time: new Date(this.now()).toISOString(), ...item });
    if (this.items.length > EVENT_LOG_SIZE) this.items.shift();
  }

  recent(n = 50): ClusterStatusEvent[] {
    return this.items.slice(-n);
  }

  private noteOf(e: ClusterEvent): Omit<ClusterStatusEvent, 'time'> | undefined {
    switch (e.kind) {
      case 'host-state':
        if (e.state === 'unreachable') {
          this.down.add(e.host);
          return { level: 'error', subject: e.host, text: `unreachable: ${e.reason ?? 'connection lost'}` };
        }
        if (e.state === 'failed')
          return { level: 'error', subject: e.host, text: `failed: ${e.reason ?? ''}`.trimEnd() };
        if (e.state === 'running' && this.down.delete(e.host))
          return { level: 'info', subject: e.host, text: 'reconnected' };
        return undefined;
      case 'process-exit':
        return { level: e.expected ? 'info' : 'warning', subject: e.name, text: exitText(e) };
      case 'process-line':
        return e.name === 'scheduler' ? undefined : this.workerNote(e.name, e.line);
      case 'notice':
        return { level: e.level, subject: 'sshcluster', text: e.message };
      case 'adaptive-decision':
        return { level: 'info', subject: 'adaptive', text: decisionText(e) };
      case 'teardown-started':
        return { level: 'info', subject: 'sshcluster', text: `stopping the cluster (${e.reason})` };
      case 'process-started':
      case 'cluster-up':
      case 'teardown-done':
        return undefined;
    }
  }

  /**
   * A death is counted when the nanny says it restarts the process: a stop of ours also
   * kills the worker process, but then the nanny closes instead. A client's restart()
   * closes the worker with its reason first (2022.12 `scheduler-restart`, 2024.12
   * `client-restart-…`): that restart is said, not counted.
   */
  private workerNote(name: string, line: string): Omit<ClusterStatusEvent, 'time'> | undefined {
    const w = parseWorkerLine(line);
    if (w?.kind === 'closing' && !w.nanny && /^(scheduler-restart|client-restart)/.test(w.reason ?? ''))
      this.askedRestart.add(name);
    if (w?.kind === 'stopped' || w?.kind === 'nanny') this.askedRestart.delete(name); // that process is gone
    if (w?.kind === 'worker-died') this.lastDeath.set(name, w.message);
    if (w?.kind !== 'restarting') return undefined;
    if (this.askedRestart.delete(name)) {
      this.lastDeath.delete(name);
      return { level: 'info', subject: name, text: 'restarted, as a client asked (Client.restart)' };
    }
    const n = (this.nannyRestarts.get(name) ?? 0) + 1;
    this.nannyRestarts.set(name, n);
    const why = this.lastDeath.get(name) ?? 'its worker process died';
    this.lastDeath.delete(name);
    return {
      level: 'warning',
      subject: name,
      text: `${why}; its nanny restarted it (${n} time(s) so far; tasks that keep killing workers end in KilledWorker)`,
    };
  }
}
