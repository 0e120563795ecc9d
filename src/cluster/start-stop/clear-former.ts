// The hosts an `apply` removed and had yet to leave when its controller died: no runner
// of ours reaches them. A re-adopting controller (once the scheduler answers) and its
// teardown retire their workers through the scheduler (data moved), then clear the host
// as its leave would have. One that cannot be cleared stays in the state file for `down`.
import { errorText } from '../../errors.js';
import type { ClusterEvent } from '../../events/types.js';
import type { HostSpec } from '../../config/spec.js';
import type { ClusterState } from '../cluster-state.js';
import { hostsToClear } from '../changes/former-hosts.js';
import type { ClearUpResult, SchedulerPort } from '../ports.js';
import type { PreviousCluster } from './readopt.js';
import { STRAY_GRACE_MS } from './readopt.js';
import type { TeardownResult } from './teardown.js';

export interface ClearFormerDeps {
  state: ClusterState;
  emit(e: ClusterEvent): void;
  scheduler(): SchedulerPort | undefined;
  /** The dead controller's record: which workers ran on those hosts. */
  previous?: PreviousCluster;
  /** Everything of the cluster on a host no runner reaches stopped, then its files removed. */
  clearHost(h: HostSpec, o: { tmpdirs: (string | undefined)[]; graceMs: number }): Promise<ClearUpResult>;
}

/** Returns the hosts it could not clear. */
export async function clearFormerOnly(d: ClearFormerDeps): Promise<TeardownResult['leftover']> {
  const { state } = d;
  const gone = hostsToClear(state.spec, state.formerHosts).filter(
    (h) => !state.hostSpec(h.name) && !state.runners.has(h.name),
  );
  const left: TeardownResult['leftover'] = [];
  await Promise.all(
    gone.map(async (h) => {
      try {
        await retireOn(d, h.name);
        const r = await d.clearHost(h, { tmpdirs: state.tmpdirsOf(h.name), graceMs: STRAY_GRACE_MS });
        if (r.left.length || r.filesError) throw new Error(r.filesError ?? `pid(s) ${r.left.join(', ')} still running`);
        state.forgetFormer(h.name);
        d.emit({
          kind: 'notice',
          level: 'info',
          message: `${h.name} left the cluster (an interrupted apply had removed it)`,
        });
      } catch (err) {
        left.push({ host: h.name, pids: [] });
        d.emit({
          kind: 'notice',
          level: 'warning',
          message: `${h.name}: could not clear what an interrupted apply left there (${errorText(err)}); \`sshcluster down\` tries again`,
        });
      }
    }),
  );
  return left;
}

/**
 * The workers the scheduler still has on `host`, retired (data moved; kept until their
 * stop, as scale-down's). A SIGTERM alone lets a worker retire itself only if its close
 * gets that far within the grace.
 */
async function retireOn(d: ClearFormerDeps, host: string): Promise<void> {
  const names = (d.previous?.processes ?? []).filter((p) => p.host === host && p.role === 'worker').map((p) => p.name);
  const addresses = names.flatMap((n) => d.state.registered.get(n) ?? []);
  const client = d.scheduler();
  if (!addresses.length || !client) return;
  await client.retireWorkers(addresses, { keep: true }).catch((err: unknown) => {
    d.emit({
      kind: 'notice',
      level: 'warning',
      message: `${host}: retiring its workers through the scheduler failed (${errorText(err)}); stopping them directly`,
    });
  });
}
