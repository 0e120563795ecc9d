// `up` after the controller of the same cluster died (e.g. kill -9 of a detached one):
// its processes are still running, waiting out their orphan grace. Take them over
// instead of starting duplicates. A recorded PID counts only if, on its host, it is
// still alive, carries this cluster's tags and leads its own process group (as every
// launcher child does), so a recycled PID is never mistaken for ours. Anything else
// tagged that is neither an adopted process, its group nor its launcher is a stray
// (e.g. started just before the controller died, never recorded) and is stopped, so
// that the reconcile that follows starts each missing process exactly once.
// Without a live scheduler the workers are of no use (they do not re-register with a
// new one): everything tagged is stopped and the cluster starts afresh.
import type { HostSpec } from '../../config/spec.js';
import type { ClusterEvent } from '../../events/types.js';
import type { ClusterState } from '../cluster-state.js';
import type { DesiredProcess } from '../plan-actions.js';
import type { TaggedProcess } from '../ports.js';
import { keepSize } from '../placement/scaling.js';

export interface PreviousProcess {
  name: string;
  host: string;
  role: 'scheduler' | 'worker';
  pid?: number;
}

/** What a dead controller's state file says was running. */
export interface PreviousCluster {
  schedulerAddress: string;
  processes: PreviousProcess[];
  /** How many workers the dead controller was keeping (after scale or adaptive steps). */
  desiredWorkers?: number;
  /** Hosts its `apply` removed or gave another TMPDIR, still to clear (former-hosts.ts). */
  formerHosts?: HostSpec[];
  /** Workers its drain found no room for (ClusterState.drainShort). */
  drainShort?: number;
  /** When the cluster first started (ISO 8601): its uptime goes on from there once adopted. */
  startedAt?: string;
  /** Hosts no controller of the cluster ever connected to (ClusterState.unreached). */
  unreached?: string[];
  /** The dashboard URL it gave (its forward's port is kept when free). */
  dashboardUrl?: string;
  /** Workers its `apply` had yet to restart onto the spec in force (ClusterState.pendingRoll). */
  pendingRoll?: string[];
}

export interface ReadoptDeps {
  state: ClusterState;
  /** The scheduler address this controller would use: a different one is not ours to adopt. */
  address: string;
  emit(e: ClusterEvent): void;
  adopt(p: DesiredProcess, pid: number): Promise<boolean>;
}

/** How long strays get to stop after SIGTERM before SIGKILL. */
export const STRAY_GRACE_MS = 5_000;

/** Adopts what is still alive; returns how many processes were adopted. */
export async function readopt(d: ReadoptDeps, previous: PreviousCluster): Promise<number> {
  const { state, emit } = d;
  const tagged = await listTagged(d);
  const isLive = (p: PreviousProcess) =>
    p.pid !== undefined && state.hostSpec(p.host) !== undefined && leads(tagged.get(p.host), p.pid);
  const sched = previous.processes.find((p) => p.role === 'scheduler');
  const schedulerLive =
    sched !== undefined &&
    sched.host === state.spec.schedulerHost.name &&
    previous.schedulerAddress === d.address &&
    isLive(sched);
  if (!schedulerLive) {
    const n = await stopPicked(d, tagged, () => true);
    const left = n ? `; stopped ${n} process(es) it left` : '';
    emit({
      kind: 'notice',
      level: 'warning',
      message: `the previous controller's scheduler is gone${left}: starting the cluster afresh`,
    });
    return 0;
  }
  const live = previous.processes.filter(isLive);
  const ok = await Promise.all(live.map((p) => d.adopt({ name: p.name, host: p.host, role: p.role }, p.pid!)));
  const adopted = live.filter((_, i) => ok[i]);
  const n = await stopPicked(
    d,
    tagged,
    (host, p, all) =>
      !belongsTo(
        p,
        all,
        adopted.filter((a) => a.host === host).map((a) => a.pid!),
      ),
  );
  if (n)
    emit({
      kind: 'notice',
      level: 'info',
      message: `stopped ${n} stray process(es) of this cluster that the state file did not record`,
    });
  if (previous.desiredWorkers !== undefined) {
    keepSize(
      state,
      previous.desiredWorkers,
      adopted.filter((p) => p.role === 'worker').map(({ name, host }) => ({ name, host })),
    );
  }
  return adopted.length;
}

function leads(procs: TaggedProcess[] | undefined, pid: number): boolean {
  return procs?.some((p) => p.pid === pid && p.pgid === pid) ?? false;
}

/** p is one of the adopted processes' groups (nanny + worker), or a launcher of one. */
function belongsTo(p: TaggedProcess, all: TaggedProcess[], adopted: number[]): boolean {
  if (adopted.includes(p.pgid)) return true;
  return all.some((child) => adopted.includes(child.pid) && child.ppid === p.pid);
}

async function listTagged(d: ReadoptDeps): Promise<Map<string, TaggedProcess[]>> {
  const out = new Map<string, TaggedProcess[]>();
  await Promise.all(
    [...d.state.runners.values()].map(async (r) => {
      try {
        out.set(r.host, await r.listTagged());
      } catch (err) {
        d.emit({
          kind: 'notice',
          level: 'warning',
          message: `${r.host}: could not list the processes left running (${String(err)})`,
        });
      }
    }),
  );
  return out;
}

type Pick = (host: string, p: TaggedProcess, all: TaggedProcess[]) => boolean;

/** Stops the picked processes; returns how many there were. */
async function stopPicked(d: ReadoptDeps, tagged: Map<string, TaggedProcess[]>, pick: Pick): Promise<number> {
  let n = 0;
  await Promise.all(
    [...tagged].map(async ([host, all]) => {
      const pids = all.filter((p) => pick(host, p, all)).map((p) => p.pid);
      const runner = d.state.runners.get(host);
      n += pids.length;
      if (runner && pids.length) await runner.stopTagged(pids, { graceMs: STRAY_GRACE_MS }).catch(() => undefined);
    }),
  );
  return n;
}
