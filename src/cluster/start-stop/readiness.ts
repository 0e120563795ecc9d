// Readiness comes from the scheduler itself (/health, then its worker list), not from
// INFO log lines: a scheduler run at log level WARN prints none and would never look ready.
import { delay } from '../clock.js';
import type { Clock, SchedulerPort } from '../ports.js';

export interface ReadyWaitOptions {
  client: Pick<SchedulerPort, 'health' | 'workers'>;
  /** Names we expect to register; the set may shrink as processes die. */
  expected: () => Set<string>;
  /** Resolves (with a reason) if the scheduler process is gone: stop waiting. */
  schedulerGone: Promise<string>;
  timeoutMs: number;
  pollMs?: number;
  /** The core's clock: the poll interval and the deadline are read from it. */
  clock: Clock;
  /** Aborted: stop waiting at once (the cluster is being stopped). */
  signal?: AbortSignal;
  /**
   * Registers `poke`, called when there is news (a worker printed "Registered to"): the
   * scheduler is asked again at once rather than after the rest of the poll interval.
   * The answer still comes from the scheduler; the news only says when to ask.
   */
  onNews?: (poke: () => void) => void;
  /**
   * Whether the scheduler that answers is the one we started. 'foreign' is never taken
   * as ready: another cluster's scheduler on the same port would answer /health (and,
   * started from the same host file, list workers with our names) while ours fails to
   * bind it. 'unknown' (a scheduler without our preload) is taken; 'pending' asks again.
   */
  whose?: () => Promise<Whose>;
  /** Called once when the answer is 'foreign'. */
  onForeign?: () => void;
}

export type Whose = 'ours' | 'foreign' | 'unknown' | 'pending';

export type ReadyResult =
  | { kind: 'ready'; workers: { name: string; address: string }[] }
  | { kind: 'partial'; workers: { name: string; address: string }[]; missing: string[] }
  | { kind: 'scheduler-failed'; reason: string }
  | { kind: 'stopped' };

export async function waitForScheduler(o: ReadyWaitOptions): Promise<ReadyResult> {
  const now = () => o.clock.now();
  const pollMs = o.pollMs ?? 250;
  const deadline = now() + o.timeoutMs;
  let gone: string | undefined;
  void o.schedulerGone.then((r) => (gone = r));

  let healthy = false;
  let whose: Whose = 'pending';
  let workers: { name: string; address: string }[] = [];
  // News during a query asks again right after it; news during the wait ends the wait.
  let news = false;
  let nap: AbortController | undefined;
  o.onNews?.(() => {
    news = true;
    nap?.abort();
  });
  while (now() < deadline) {
    if (o.signal?.aborted) return { kind: 'stopped' };
    if (gone !== undefined) return { kind: 'scheduler-failed', reason: gone };
    news = false;
    try {
      if (!healthy) healthy = await o.client.health();
      if (healthy && (whose === 'pending' || whose === 'foreign')) {
        const answer = o.whose ? await o.whose() : 'unknown';
        if (answer === 'foreign' && whose !== 'foreign') o.onForeign?.();
        whose = answer;
      }
      if (healthy && (whose === 'ours' || whose === 'unknown')) {
        workers = await o.client.workers();
        const names = new Set(workers.map((w) => w.name));
        const missing = [...o.expected()].filter((n) => !names.has(n));
        if (missing.length === 0) return { kind: 'ready', workers };
      }
    } catch {
      // Not listening yet: workers and the scheduler come up concurrently.
    }
    if (news) continue;
    nap = new AbortController();
    await delay(o.clock, pollMs, o.signal ? AbortSignal.any([o.signal, nap.signal]) : nap.signal);
    nap = undefined;
  }
  if (o.signal?.aborted) return { kind: 'stopped' };
  if (gone !== undefined) return { kind: 'scheduler-failed', reason: gone };
  if (!healthy)
    return { kind: 'scheduler-failed', reason: `scheduler did not answer /health within ${o.timeoutMs / 1000}s` };
  if (whose === 'foreign')
    return {
      kind: 'scheduler-failed',
      reason: `for ${o.timeoutMs / 1000}s another scheduler answered on its port, not the one started`,
    };
  const names = new Set(workers.map((w) => w.name));
  return { kind: 'partial', workers, missing: [...o.expected()].filter((n) => !names.has(n)) };
}
