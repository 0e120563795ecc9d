// Graceful teardown: retire workers through the scheduler (their data moves), stop
// them by process group, then the scheduler; then look on every host for anything
// still carrying this cluster's tag and kill it by PID.
import type { EventBus } from '../../events/types.js';
import type { ClusterSession, Tracked } from './cluster-session.js';

export interface TeardownOptions {
  session: ClusterSession;
  bus: EventBus;
  clusterId: string;
  reason: string;
  force: boolean;
  graceMs?: number;
}

const RETIRE_TIMEOUT_MS = 20_000;

export interface TeardownResult {
  forced: string[];
  leftover: { host: string; pids: number[] }[];
}

export async function teardown(o: TeardownOptions): Promise<TeardownResult> {
  const { session: s, bus } = o;
  bus.emit({ kind: 'teardown-started', reason: o.reason });
  const grace = o.force ? 0 : (o.graceMs ?? 10_000);
  const alive = (role: 'scheduler' | 'worker') => s.table.all().filter((t) => t.desired.role === role && !t.exit);

  // Hosts that ran something of ours: each must be checked, connected or not.
  const ranOn = new Set(s.table.all().map((t) => t.desired.host));
  const workers = alive('worker');
  if (!o.force && s.client && workers.length) {
    const names = new Set(workers.map((t) => t.desired.name));
    const addresses = [...s.registered].filter(([name]) => names.has(name)).map(([, address]) => address);
    if (addresses.length) {
      try {
        await withTimeout(s.client.retireWorkers(addresses), RETIRE_TIMEOUT_MS);
      } catch (err) {
        bus.emit({ kind: 'notice', level: 'warning', message: `retiring workers through the scheduler failed (${String(err)}); stopping them directly` });
      }
    }
  }
  const forced: string[] = [];
  const stopAll = async (list: Tracked[]) =>
    Promise.all(
      list.map(async (t) => {
        t.stopping = true;
        const r = await t.proc.stop(grace).catch(() => ({ forced: true }));
        if (r.forced) forced.push(t.desired.name);
      }),
    );
  await stopAll(alive('worker'));
  await stopAll(alive('scheduler'));

  const leftover: { host: string; pids: number[] }[] = [];
  for (const host of ranOn) {
    if (s.links.runners.has(host)) continue;
    // Not connected now: nothing can be verified there, so nothing is claimed.
    leftover.push({ host, pids: [] });
    bus.emit({ kind: 'notice', level: 'warning', message: `${host}: not connected, so not checked; \`sshcluster down\` can check it later` });
  }
  await Promise.all(
    [...s.links.runners.values()].map(async (r) => {
      try {
        const stray = await r.stopTagged('all', { graceMs: 0 });
        if (stray.forced.length) forced.push(`${r.host}: stray pid(s)`);
        if (stray.left.length) leftover.push({ host: r.host, pids: stray.left });
      } catch (err) {
        bus.emit({ kind: 'notice', level: 'warning', message: `${r.host}: could not verify that nothing is left (${String(err)})` });
      } finally {
        r.close();
      }
    }),
  );
  s.links.closeAll();
  bus.emit({ kind: 'teardown-done', forced, leftover });
  return { forced, leftover };
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return Promise.race([p, new Promise<T>((_, rej) => setTimeout(() => rej(new Error(`timed out after ${ms / 1000}s`)), ms).unref())]);
}
