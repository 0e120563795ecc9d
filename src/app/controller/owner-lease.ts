// The owner lease: a handle that created the cluster (the Python package's Cluster with
// hosts=) holds it on its control connection. A process killed without releasing it
// (kernel killed, OOM) closes that connection all the same, and after the grace the
// cluster goes down, unless an owner takes the lease again first. A handle that only
// attached holds none and never stops the cluster.
import type { Clock } from '../../cluster/ports.js';

export interface LeaseHolder {
  /** Called once when the connection that took the lease closes. */
  onClose(fn: () => void): void;
}

export interface LeaseState {
  held: number;
  /** When the cluster goes down unless an owner comes back (ms since epoch), if pending. */
  expiresAt?: number;
}

export class OwnerLease {
  private readonly holders = new Map<LeaseHolder, { graceMs: number }>();
  private cancelTimer?: () => void;
  private expiresAt?: number;
  private expired = false;

  constructor(
    private readonly clock: Clock,
    /** Runs the teardown; called at most once. */
    private readonly onExpire: (reason: string) => void,
  ) {}

  /** This connection holds the lease; an owner coming back cancels a pending expiry. */
  hold(conn: LeaseHolder, graceMs: number): LeaseState {
    const fresh = !this.holders.has(conn);
    this.holders.set(conn, { graceMs });
    this.cancel();
    if (fresh) conn.onClose(() => this.dropped(conn));
    return this.state();
  }

  /** A clean detach: the holder goes without starting the grace. */
  release(conn: LeaseHolder): boolean {
    return this.holders.delete(conn);
  }

  state(): LeaseState {
    return this.expiresAt === undefined
      ? { held: this.holders.size }
      : { held: this.holders.size, expiresAt: this.expiresAt };
  }

  private dropped(conn: LeaseHolder): void {
    const lease = this.holders.get(conn);
    if (!lease) return; // released before it closed
    this.holders.delete(conn);
    if (this.holders.size || this.expired) return;
    this.cancel();
    this.expiresAt = this.clock.now() + lease.graceMs;
    this.cancelTimer = this.clock.after(lease.graceMs, () => {
      this.cancelTimer = undefined;
      this.expiresAt = undefined;
      if (this.holders.size || this.expired) return;
      this.expired = true;
      this.onExpire(
        `the owner's connection closed ${Math.round(lease.graceMs / 1000)}s ago without releasing its lease`,
      );
    });
  }

  private cancel(): void {
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    this.expiresAt = undefined;
  }

  dispose(): void {
    this.cancel();
    this.expired = true;
  }
}
