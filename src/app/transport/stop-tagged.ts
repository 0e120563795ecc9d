// The one stop escalation: SIGTERM → wait out the grace → SIGKILL → verify. Used for a
// tracked process (its group, through its channel's exit) and for tagged PIDs found on
// a host (teardown's sweep, `down` from the state file, re-adoption's strays); only the
// way of signalling and of seeing a PID gone differs. SSH channel signals are not
// reliable on OpenSSH, so signals always go by PID over a separate command.
import { delay } from '../../cluster/clock.js';
import type { Clock, StopResult } from '../../cluster/ports.js';
import { systemClock } from '../system-clock.js';

export interface StopTarget {
  signal(sig: 'TERM' | 'KILL', pids: number[]): Promise<void>;
  /** Which of `pids` are still alive; called after each wait. */
  alive(pids: number[]): Promise<number[]>;
  /** Resolves early when all of `pids` are gone (e.g. a channel's exit); else polling. */
  gone?: Promise<unknown>;
}

export interface EscalationOptions {
  /** Wait after TERM; 0 skips TERM (KILL at once). */
  graceMs: number;
  /** Wait after KILL before what is still alive is reported as left. */
  verifyMs?: number;
  pollMs?: number;
  /** Aborted (a second Ctrl-C): no more grace, KILL now. */
  force?: AbortSignal;
  /** The waits' clock (tests: a fake one); the system clock if not given. */
  clock?: Clock;
}

const DEFAULT_VERIFY_MS = 300;
const DEFAULT_POLL_MS = 250;

export async function stopTagged(t: StopTarget, pids: number[], o: EscalationOptions): Promise<StopResult> {
  const stopped = [...new Set(pids)];
  let left = stopped;
  if (!left.length) return { stopped, forced: [], left: [] };
  if (o.graceMs > 0 && !o.force?.aborted) {
    await t.signal('TERM', left);
    left = await waitGone(t, left, o.graceMs, o);
  }
  const forced = left;
  if (!left.length) return { stopped, forced, left };
  await t.signal('KILL', left);
  left = await waitGone(t, left, o.verifyMs ?? DEFAULT_VERIFY_MS, { ...o, force: undefined });
  return { stopped, forced, left };
}

/** Waits until every PID is gone or `ms` passed (or force is aborted); returns what is left. */
async function waitGone(t: StopTarget, pids: number[], ms: number, o: EscalationOptions): Promise<number[]> {
  const clock = o.clock ?? systemClock;
  const end = clock.now() + ms;
  let left = pids;
  while (left.length) {
    const wait = Math.min(o.pollMs ?? DEFAULT_POLL_MS, end - clock.now());
    if (wait <= 0 || o.force?.aborted) break;
    if (await sleepUnless(clock, wait, t.gone, o.force)) return [];
    left = await t.alive(left).catch(() => left);
  }
  return left;
}

/** true when `gone` settled first; false after `ms` or once `force` is aborted. */
function sleepUnless(
  clock: Clock,
  ms: number,
  gone: Promise<unknown> | undefined,
  force: AbortSignal | undefined,
): Promise<boolean> {
  const slept = delay(clock, ms, force).then(() => false);
  return gone
    ? Promise.race([
        slept,
        gone.then(
          () => true,
          () => true,
        ),
      ])
    : slept;
}
