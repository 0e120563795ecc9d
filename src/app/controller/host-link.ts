// Connections to hosts: one runner per host, health with reconnect back-off, and on a
// reconnect the processes of ours left from the dropped session are stopped first
// (their output went to the dead channel and their names would clash).
import type { ClusterSession } from './cluster-session.js';
import { errorText } from './cluster-session.js';
import { ShellHostRunner } from '../remote/host-runner.js';

export class HostLink {
  readonly runners = new Map<string, ShellHostRunner>();
  private connecting = new Map<string, Promise<void>>();

  constructor(private readonly s: ClusterSession) {}

  usable(host: string): boolean {
    return this.runners.has(host) && this.s.health.isUsable(host);
  }

  unusable(): Set<string> {
    const all = [this.s.spec.schedulerHost.name, ...this.s.spec.workerHosts.map((h) => h.name)];
    return new Set(all.filter((h) => !this.usable(h)));
  }

  connect(host: string): Promise<void> {
    let p = this.connecting.get(host);
    if (!p) {
      p = this.doConnect(host).finally(() => this.connecting.delete(host));
      this.connecting.set(host, p);
    }
    return p;
  }

  private async doConnect(host: string): Promise<void> {
    const spec = this.s.hostSpec(host);
    if (!spec) return;
    const { bus } = this.s;
    const reconnect = this.s.health.state(host) !== undefined;
    this.s.health.markConnecting(host, this.s.now());
    bus.emit({ kind: 'host-state', host, state: 'connecting' });
    let shell: import('../remote/shell-port.js').ShellPort | undefined;
    try {
      shell = await this.s.o.openShell(spec);
      const runner = new ShellHostRunner({ host, clusterId: this.s.o.clusterId, setup: spec.setup, shell, orphanGraceS: this.s.o.orphanGraceS });
      if (reconnect) await this.stopStale(runner);
      this.runners.set(host, runner);
      this.s.health.markUp(host, this.s.now());
      this.s.failedHosts.delete(host);
      shell.onClose((err) => this.dropped(host, runner, err));
      shell = undefined; // owned by the runner from here on
      bus.emit({ kind: 'host-state', host, state: reconnect ? 'running' : 'starting' });
    } catch (err) {
      shell?.close(); // a connection that failed its clean-up step is not kept
      // SSH errors already start with the host's name; the event carries it too.
      const text = errorText(err);
      const reason = text.startsWith(`${host}: `) ? text.slice(host.length + 2) : text;
      this.s.health.markDown(host, this.s.now(), reason);
      if (reconnect) bus.emit({ kind: 'host-state', host, state: 'unreachable', reason });
      else this.s.failHost(host, reason);
    }
  }

  private closing = false;

  private dropped(host: string, runner: ShellHostRunner, err?: Error): void {
    // No error: close() was called, by us (teardown closes each runner as it is done).
    if (!err || this.closing || this.runners.get(host) !== runner) return;
    this.runners.delete(host);
    const reason = errorText(err);
    const retryAt = this.s.health.markDown(host, this.s.now(), reason);
    this.s.bus.emit({ kind: 'host-state', host, state: 'unreachable', reason });
    setTimeout(() => void this.s.tick(), Math.max(0, retryAt - this.s.now()) + 10).unref();
  }

  private async stopStale(runner: ShellHostRunner): Promise<void> {
    const tracked = new Set<number>();
    for (const t of this.s.table.all()) if (t.pid !== undefined && !t.exit) tracked.add(t.pid);
    const stale = (await runner.listTagged(this.s.o.clusterId)).filter((p) => !tracked.has(p));
    if (stale.length) {
      await runner.killPids(stale);
      this.s.bus.emit({ kind: 'notice', level: 'info', message: `${runner.host}: stopped ${stale.length} process(es) left from the dropped connection` });
    }
  }

  closeAll(): void {
    // Our own close is not a host dropping: no "unreachable" reports at teardown.
    this.closing = true;
    for (const r of this.runners.values()) r.close();
    this.runners.clear();
  }
}
