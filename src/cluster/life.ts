// A running cluster's life once its adapters are built: start, then (once up) serve,
// adaptive and an owed roll, then wait for a stop or the scheduler's exit, and tear down.
// The decisions (which teardown, which exit code, which notice) live here, over a narrow
// port, so a unit test drives every outcome with fakes: no timers, no I/O of its own.
import type { ClusterEvent } from '../events/types.js';
import type { TeardownResult } from './start-stop/teardown.js';

export interface LifePorts {
  /** The one stop of the command (Ctrl-C, SIGTERM, `down`, q), aborted with its reason. */
  readonly stop: AbortSignal;
  /** Starts the cluster; resolves once it is up. */
  start(): Promise<unknown>;
  /** A graceful teardown (the core's Cluster makes one however often it is asked). */
  teardown(reason: string): Promise<TeardownResult>;
  /** Once up: the control endpoint listens (and a detached parent hears of it). */
  serve(): Promise<void>;
  /** Set when the cluster is adaptive from the start. */
  startAdaptive?: () => void;
  /** The workers an interrupted `apply` had not restarted yet, owed again (read before serve). */
  owedRoll(): readonly string[];
  /** Restarts them onto the spec in force, one at a time. */
  resumeRoll(names: readonly string[]): Promise<unknown>;
  /** Settles when the scheduler process exits, with its exit (code and signal null: its host's connection ended). */
  schedulerExit(): Promise<unknown>;
  /** Calls fn when a client asks the scheduler to shut down (Client.shutdown()); returns the unsubscribe. */
  onClientShutdown(fn: () => void): () => void;
  /** The scheduler's coming exit was asked for: not a failure to report as one. */
  schedulerStopAsked(): void;
  emit(e: ClusterEvent): void;
}

/** How the life ended: an exit code, or an error to report; `result` is the teardown's when one ran. */
export type LifeEnd =
  | { kind: 'exit'; code: number; result: TeardownResult | undefined }
  | { kind: 'error'; error: unknown; result: TeardownResult };

export async function runLife(p: LifePorts): Promise<LifeEnd> {
  const stopRequested = new Promise<'stop'>((r) => {
    if (p.stop.aborted) r('stop');
    else p.stop.addEventListener('abort', () => r('stop'), { once: true });
  });
  const reason = (fallback: string) => (p.stop.aborted ? String(p.stop.reason) : fallback);
  let result: TeardownResult | undefined;
  try {
    const started = p.start();
    const first = await Promise.race([started.then(() => 'up' as const), stopRequested]);
    if (first === 'stop') {
      result = await p.teardown(reason('stop'));
      await started.catch(() => undefined);
      return { kind: 'exit', code: 130, result };
    }
    // In the state file from its first save on: killed again before the roll goes on,
    // the next controller still owes it.
    const owed = p.owedRoll();
    await p.serve();
    if (!p.stop.aborted) p.startAdaptive?.(); // stopped during serve(): a stopping cluster refuses it
    continueRoll(p, owed);
    const why = await Promise.race([stopRequested, schedulerEnd(p)]);
    if (why === 'client-shutdown') {
      // Client.shutdown() from a notebook or script: a down that was asked for.
      p.emit({
        kind: 'notice',
        level: 'info',
        message: 'a client shut the scheduler down (Client.shutdown()); stopping the cluster',
      });
      result = await p.teardown('Client.shutdown()');
      return { kind: 'exit', code: result.leftover.length ? 1 : 0, result };
    }
    if (why === 'scheduler-lost') {
      // No exit status: the SSH connection to its host dropped (sshd restarted, the network).
      // The scheduler may still run there; the teardown cannot reach it, and says so.
      p.emit({
        kind: 'notice',
        level: 'error',
        message:
          "lost the connection to the scheduler's host (the scheduler may still run there); stopping the cluster",
      });
      result = await p.teardown('scheduler host lost');
      return { kind: 'exit', code: 1, result };
    }
    if (why === 'scheduler-died') {
      // Workers do not reconnect to a new scheduler (they close when its connection
      // breaks), and the tasks' state died with it: fail loudly rather than pretend.
      p.emit({ kind: 'notice', level: 'error', message: 'the scheduler exited; stopping the cluster' });
      result = await p.teardown('scheduler exited');
      return { kind: 'exit', code: 1, result };
    }
    result = await p.teardown(reason('stop'));
    return { kind: 'exit', code: result.leftover.length ? 1 : 0, result };
  } catch (error) {
    result = await p.teardown('failure');
    if (p.stop.aborted) return { kind: 'exit', code: 130, result };
    return { kind: 'error', error, result };
  }
}

/**
 * The scheduler's exit, told apart by whether a client asked for it first, and from the
 * end of its host's connection (an exit with no status: nothing says the scheduler died).
 */
function schedulerEnd(p: LifePorts): Promise<'client-shutdown' | 'scheduler-died' | 'scheduler-lost'> {
  let asked = false;
  const off = p.onClientShutdown(() => {
    asked = true;
    p.schedulerStopAsked();
  });
  return p
    .schedulerExit()
    .then((e) =>
      asked
        ? ('client-shutdown' as const)
        : lostWithConnection(e)
          ? ('scheduler-lost' as const)
          : ('scheduler-died' as const),
    )
    .finally(off);
}

function lostWithConnection(e: unknown): boolean {
  if (typeof e !== 'object' || e === null) return false;
  const x = e as { code?: unknown; signal?: unknown };
  return x.code === null && x.signal === null;
}

function continueRoll(p: LifePorts, names: readonly string[]): void {
  if (!names.length) return;
  p.emit({
    kind: 'notice',
    level: 'info',
    message: `continuing the interrupted apply: restarting ${names.length} worker(s) onto the spec in force`,
  });
  // A roll that stops says so itself (cluster-changes.ts).
  void p
    .resumeRoll(names)
    .catch((err: unknown) =>
      p.emit({ kind: 'notice', level: 'error', message: `rolling restart failed: ${String(err)}` }),
    );
}
