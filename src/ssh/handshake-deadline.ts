// When an SSH handshake has taken too long. A host that says nothing for `silenceMs`
// (connect_timeout) fails, as OpenSSH's ConnectTimeout fails a server that sends no
// banner; one that answers each step, however slowly (an sshd re-exec'd on a loaded host,
// a login that waits on LDAP), goes on, up to `totalMs` in all. Time the client waits on
// itself (an agent, a passphrase) is a hold and counts for neither.

export interface DeadlineTimers {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  /** Runs fn after the I/O already waiting has been read (setImmediate). */
  afterPendingIo(fn: () => void): void;
}

export type DeadlineMiss = 'silent' | 'stalled' | 'total';

const realTimers: DeadlineTimers = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
  afterPendingIo: (fn) => setImmediate(fn),
};

/** How many times connect_timeout a whole handshake may take while the server keeps answering. */
export const HANDSHAKE_TOTAL_FACTOR = 6;

export class HandshakeDeadline {
  private timer: unknown;
  private holds = 0;
  private done = false;
  private heard = false;
  private lastHeard: number;
  /** Time spent in holds, which the total does not count. */
  private held = 0;
  private holdStart = 0;
  private readonly started: number;

  constructor(
    private readonly silenceMs: number,
    private readonly onMiss: (why: DeadlineMiss) => void,
    private readonly timers: DeadlineTimers = realTimers,
    private readonly totalMs = silenceMs * HANDSHAKE_TOTAL_FACTOR,
  ) {
    this.started = this.lastHeard = timers.now();
    this.arm();
  }

  /** The server sent something. */
  heardFrom(): void {
    this.heard = true;
    this.lastHeard = this.timers.now();
  }

  hold(): void {
    if (this.done) return;
    if (this.holds++ === 0) {
      this.holdStart = this.timers.now();
      this.timers.clearTimeout(this.timer);
    }
  }

  release(): void {
    if (this.done || this.holds === 0) return;
    if (--this.holds === 0) {
      const now = this.timers.now();
      this.held += now - this.holdStart;
      // What the server sent while we held is answered only now: silence starts again here.
      this.lastHeard = now;
      this.arm();
    }
  }

  stop(): void {
    this.done = true;
    this.timers.clearTimeout(this.timer);
  }

  private arm(): void {
    const now = this.timers.now();
    const silentLeft = this.lastHeard + this.silenceMs - now;
    const totalLeft = this.started + this.held + this.totalMs - now;
    this.timers.clearTimeout(this.timer);
    this.timer = this.timers.setTimeout(() => this.due(), Math.max(0, Math.min(silentLeft, totalLeft)));
  }

  // A loaded controller's timer can come due while the server's answer waits unread
  // (timers run before I/O in an event loop turn): look again once that I/O is in.
  private due(): void {
    this.timers.afterPendingIo(() => {
      if (this.done || this.holds > 0) return;
      const now = this.timers.now();
      if (now - this.started - this.held >= this.totalMs) return this.miss('total');
      if (now - this.lastHeard >= this.silenceMs) return this.miss(this.heard ? 'stalled' : 'silent');
      this.arm();
    });
  }

  private miss(why: DeadlineMiss): void {
    this.stop();
    this.onMiss(why);
  }
}
