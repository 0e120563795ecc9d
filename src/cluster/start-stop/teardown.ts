// Graceful teardown: retire workers through the scheduler (their data moves), stop
// them by process group, and the scheduler with them; then look on every host for anything
// still carrying this cluster's tag and stop it by PID; a host left clean also loses
// the files the cluster kept there (TLS material, the scheduler preload). A host that ran something of
// ours and is not connected cannot be checked, and is reported so, never as clean.
import type { ClusterEvent } from '../../events/types.js';
import type { ClusterState, TrackedProcess } from '../cluster-state.js';
import { delay } from '../clock.js';
import type { Clock, SchedulerPort } from '../ports.js';

export interface TeardownDeps {
  state: ClusterState;
  clock: Clock;
  emit(e: ClusterEvent): void;
  scheduler(): SchedulerPort | undefined;
  /** Closes every host connection (ours: not a host dropping). */
  closeAll(): void;
  /**
   * Hosts with no runner that may still hold something of ours (an `apply` removed them
   * and they were not left yet): cleared by it; those it could not clear.
   */
  clearFormer?(): Promise<TeardownResult['leftover']>;
  /** Settles once the starts under way have been answered (what they started is then tracked). */
  startsSettled?(): Promise<void>;
}

export interface TeardownOptions {
  reason: string;
  /** No retiring, no grace. */
  force: boolean;
  graceMs?: number;
  /** Aborted (a second Ctrl-C): what still has grace left is killed now. */
  forceSignal?: AbortSignal;
}

export interface TeardownResult {
  forced: string[];
  leftover: { host: string; pids: number[] }[];
  /**
   * Results only the workers held, which the scheduler could not move (down retires every
   * worker at once, so none is left to take them): gone with the cluster. Absent when none
   * were, or the scheduler did not say (its retire route without sshcluster's preload).
   */
  droppedResults?: number;
}

export const TEARDOWN_RETIRE_TIMEOUT_MS = 20_000;
export const TEARDOWN_GRACE_MS = 10_000;

export async function teardown(d: TeardownDeps, o: TeardownOptions): Promise<TeardownResult> {
  const { state, emit } = d;
  emit({ kind: 'teardown-started', reason: o.reason });
  const grace = o.force ? 0 : (o.graceMs ?? TEARDOWN_GRACE_MS);
  // A start under way lands after the stops are chosen, and on a host already looked at,
  // unless it is waited for: for as long as a grace at most (a launch that hangs), less
  // if forced.
  if (d.startsSettled) await Promise.race([d.startsSettled(), delay(d.clock, TEARDOWN_GRACE_MS, o.forceSignal)]);
  // Hosts that ran something of ours: each must be checked, connected or not.
  const ranOn = new Set(state.all().map((t) => t.desired.host));
  const dropped = o.force ? undefined : await retireAll(d, o.forceSignal);
  const forced: string[] = [];
  // Hosts whose last process said, as it ended, that nothing else of ours is left there
  // and the files are gone: its look is done (no shell of its own).
  const reportedClean = new Set<string>();
  const stopOne = async (t: TrackedProcess) => {
    t.stopping = true;
    state.changed();
    const r = await t.proc
      .stop(grace, o.forceSignal, { clusterEnds: true })
      .catch(() => ({ forced: true, hostClean: false }));
    if (r.forced) forced.push(t.desired.name);
    if (r.hostClean) reportedClean.add(t.desired.host);
  };
  // The scheduler with the workers, not after them: once retired (or not retirable) no
  // worker needs it, and no Dask we run on (2022.12 on) reconnects a worker whose
  // scheduler went first: it closes. Waiting for 64 workers' exits first left the
  // scheduler's own exit, ~1 s on a busy host, alone at the end of the stop (docs/scale.md).
  // Each host gets its last look as soon as what ran there has stopped. The stop says the
  // cluster ends: a host's last launcher looks, and removes the cluster's files, as it
  // exits; only where none could say so does the look open a shell there.
  const stopsOn = new Map<string, Promise<void>[]>();
  const track = (host: string, p: Promise<void>) => (stopsOn.set(host, [...(stopsOn.get(host) ?? []), p]), p);
  for (const t of [...state.alive('worker'), ...state.alive('scheduler')]) track(t.desired.host, stopOne(t));
  const allStopped = Promise.all([...stopsOn.values()].flat());

  const leftover: { host: string; pids: number[] }[] = [];
  // After every stop, as before: it retires through the scheduler what is left there.
  const former = allStopped.then(() => d.clearFormer?.()).then((l) => leftover.push(...(l ?? [])));
  const looked = new Set([...ranOn, ...state.runners.keys()]);
  await Promise.all(
    [...looked].map(async (host) => {
      await Promise.all(stopsOn.get(host) ?? []);
      const r = state.runners.get(host);
      if (!r) {
        // Not connected (or dropped during the stops): it cannot be checked.
        leftover.push({ host, pids: [] });
        emit({
          kind: 'notice',
          level: 'warning',
          message: `${host}: not connected, so not checked; \`sshcluster down\` can check it later`,
        });
        return;
      }
      try {
        const stray = await r.clearUp({ graceMs: 0, reportedClean: reportedClean.has(host) });
        if (stray.forced.length) forced.push(`${host}: stray pid(s)`);
        if (stray.left.length) leftover.push({ host, pids: stray.left });
        if (stray.filesError) emit({ kind: 'notice', level: 'warning', message: `${host}: ${stray.filesError}` });
      } catch (err) {
        emit({
          kind: 'notice',
          level: 'warning',
          message: `${host}: could not verify that nothing is left (${String(err)})`,
        });
      } finally {
        r.close();
      }
    }),
  );
  await former;
  d.closeAll();
  const left = byHost(leftover);
  emit({ kind: 'teardown-done', forced, leftover: left });
  return { forced, leftover: left, ...(dropped ? { droppedResults: dropped } : {}) };
}

/** One entry a host: a host an apply removed is looked at twice (its workers ran there, and it is a former host). */
function byHost(leftover: readonly { host: string; pids: number[] }[]): { host: string; pids: number[] }[] {
  const out = new Map<string, number[]>();
  for (const l of leftover) out.set(l.host, [...new Set([...(out.get(l.host) ?? []), ...l.pids])]);
  return [...out].map(([host, pids]) => ({ host, pids }));
}

/**
 * Retire the live workers the scheduler knows, bounded in time; on failure they are
 * stopped directly. `keep`: the scheduler keeps them until the stop that follows ends
 * them, so none closes itself on a heartbeat while its SIGTERM arrives.
 */
async function retireAll(d: TeardownDeps, forceSignal: AbortSignal | undefined): Promise<number | undefined> {
  const scheduler = d.scheduler();
  const names = new Set(d.state.alive('worker').map((t) => t.desired.name));
  const addresses = [...d.state.registered].filter(([name]) => names.has(name)).map(([, address]) => address);
  // A scheduler process that has ended (a client's shutdown()) retires nothing: the
  // workers are stopped directly, and that is no failure to report.
  const schedulers = d.state.all().filter((t) => t.desired.role === 'scheduler');
  const ended = schedulers.length > 0 && schedulers.every((t) => t.exit);
  if (!scheduler || !addresses.length || ended) return undefined;
  let cancel = () => {};
  const late = new Promise<never>((_, reject) => {
    const fail = (why: string) => reject(new Error(why));
    const stopTimer = d.clock.after(TEARDOWN_RETIRE_TIMEOUT_MS, () =>
      fail(`timed out after ${TEARDOWN_RETIRE_TIMEOUT_MS / 1000}s`),
    );
    const onForce = () => fail('forced');
    if (forceSignal?.aborted) onForce();
    forceSignal?.addEventListener('abort', onForce, { once: true });
    cancel = () => (stopTimer(), forceSignal?.removeEventListener('abort', onForce));
  });
  try {
    const r = await Promise.race([scheduler.retireWorkers(addresses, { keep: true }), late]);
    // down is the user's own teardown: what could not move goes, and is said.
    const n = r.kept.reduce((sum, k) => sum + (k.results ?? 0), 0);
    if (n > 0)
      d.emit({
        kind: 'notice',
        level: 'info',
        message: `down: ${n} result(s) only the workers held are dropped with them`,
      });
    return n > 0 ? n : undefined;
  } catch (err) {
    d.emit({
      kind: 'notice',
      level: 'warning',
      message: `retiring workers through the scheduler failed (${String(err)}); stopping them directly`,
    });
    return undefined;
  } finally {
    cancel();
  }
}
