// Per-host connection health and reconnect back-off. Pure: no timers; the caller
// records what happened with the time it happened and asks which hosts are due.
import { backoffDelay } from './supervisor.js';

export interface ReconnectPolicy {
  baseMs: number;
  factor: number;
  maxMs: number;
  /** Up at least this long before going down: the back-off starts again at baseMs. */
  stableMs: number;
}

export const DEFAULT_RECONNECT_POLICY: Readonly<ReconnectPolicy> = Object.freeze({
  baseMs: 1000,
  factor: 2,
  maxMs: 30_000,
  stableMs: 30_000,
});

/** `lastError` survives recovery so a UI can still say why a host was down. */
export type HostState =
  | { kind: 'connecting'; since: number; lastError?: string }
  | { kind: 'up'; since: number; lastError?: string }
  | { kind: 'degraded'; since: number; reason: string; lastError?: string }
  | { kind: 'unreachable'; since: number; error: string; failures: number; retryAt: number };

interface Entry {
  kind: 'connecting' | 'up' | 'unreachable';
  since: number;
  degraded?: string;
  lastError?: string;
  /** Consecutive failed connects (or drops) counted for the back-off. */
  failures: number;
  /** Order first seen (ties in dueForReconnect). */
  seq: number;
  retryAt?: number;
}

export class HostHealth {
  private readonly entries = new Map<string, Entry>();
  /** Unreachable hosts (those dueForReconnect looks at), so a tick does not walk every host. */
  private readonly down = new Set<string>();
  private changes = 0;
  private seen = 0;

  constructor(readonly policy: Readonly<ReconnectPolicy> = DEFAULT_RECONNECT_POLICY) {}

  /** A connect attempt begins (first connect, or a reconnect that dueForReconnect offered). */
  markConnecting(host: string, now: number): void {
    const e = this.entry(host, now);
    this.moved(host, 'connecting');
    e.kind = 'connecting';
    e.since = now;
    e.retryAt = undefined;
    e.degraded = undefined;
  }

  markUp(host: string, now: number): void {
    const e = this.entry(host, now);
    if (e.kind !== 'up') e.since = now;
    this.moved(host, 'up');
    e.kind = 'up';
    e.retryAt = undefined;
  }

  /**
   * A connect failed or an up connection dropped. Returns the time to retry. A host
   * that was up for at least stableMs starts the back-off again; one that flaps keeps
   * climbing, so a host that accepts and drops at once is not hammered every second.
   */
  markDown(host: string, now: number, error: string): number {
    const e = this.entry(host, now);
    const stable = e.kind === 'up' && now - e.since >= this.policy.stableMs;
    e.failures = stable ? 1 : e.failures + 1;
    this.moved(host, 'unreachable');
    e.kind = 'unreachable';
    e.since = now;
    e.lastError = error;
    e.degraded = undefined;
    e.retryAt = now + backoffDelay(this.policy, e.failures);
    return e.retryAt;
  }

  /** Up, but some of its processes are crash-looping or not running. Ignored unless up. */
  markDegraded(host: string, reason: string): void {
    const e = this.entries.get(host);
    if (e?.kind === 'up') e.degraded = reason;
  }

  clearDegraded(host: string): void {
    const e = this.entries.get(host);
    if (e) e.degraded = undefined;
  }

  /** Unreachable hosts whose retry time has come, earliest first (ties: first seen). */
  dueForReconnect(now: number): string[] {
    const due: [string, Entry][] = [];
    for (const h of this.down) {
      const e = this.entries.get(h);
      if (e?.kind === 'unreachable' && e.retryAt !== undefined && e.retryAt <= now) due.push([h, e]);
    }
    return due.sort(([, a], [, b]) => (a.retryAt ?? 0) - (b.retryAt ?? 0) || a.seq - b.seq).map(([h]) => h);
  }

  /** Bumped whenever a host becomes usable or stops being so (what plan() reads of it). */
  get version(): number {
    return this.changes;
  }

  private moved(host: string, kind: Entry['kind']): void {
    const was = this.entries.get(host)?.kind;
    if (kind === 'unreachable') this.down.add(host);
    else this.down.delete(host);
    if (was !== kind || was === 'unreachable') this.changes++;
  }

  state(host: string): HostState | undefined {
    const e = this.entries.get(host);
    if (!e) return undefined;
    const lastError = e.lastError === undefined ? {} : { lastError: e.lastError };
    switch (e.kind) {
      case 'connecting':
        return { kind: 'connecting', since: e.since, ...lastError };
      case 'up':
        return e.degraded === undefined
          ? { kind: 'up', since: e.since, ...lastError }
          : { kind: 'degraded', since: e.since, reason: e.degraded, ...lastError };
      case 'unreachable':
        return {
          kind: 'unreachable',
          since: e.since,
          error: e.lastError ?? '',
          failures: e.failures,
          retryAt: e.retryAt ?? e.since,
        };
    }
  }

  /** Up or degraded: processes can be started there. */
  isUsable(host: string): boolean {
    return this.entries.get(host)?.kind === 'up';
  }

  /** Known hosts that are not usable, the shape plan() takes. */
  unusableHosts(): Set<string> {
    return new Set([...this.entries].filter(([, e]) => e.kind !== 'up').map(([h]) => h));
  }

  hosts(): string[] {
    return [...this.entries.keys()];
  }

  /** The host left the cluster. */
  forget(host: string): void {
    this.down.delete(host);
    if (this.entries.delete(host)) this.changes++;
  }

  private entry(host: string, now: number): Entry {
    let e = this.entries.get(host);
    if (!e) {
      e = { kind: 'connecting', since: now, failures: 0, seq: this.seen++ };
      this.entries.set(host, e);
      this.changes++;
    }
    return e;
  }
}
