// `adapt` on a running session (the control socket's method and the dashboard's key):
// off, a dry-run step, or new settings checked and the loop restarted with them.
import { newWorkerSize } from '../../config/worker-size.js';
import { adaptiveRefusal } from '../../adaptive/limits.js';
import { adaptiveSettingsText } from '../../adaptive/settings-text.js';
import { slotsWarning } from '../../adaptive/slots.js';
import { workerBounds } from '../../adaptive/target.js';
import { UsageError } from '../../errors.js';
import { keepTargetDuration, mergeAdaptive } from '../../adaptive/settings.js';
import type { ClusterSession } from './cluster-session.js';
import type { AdaptParams, AdaptReply } from './control-api.js';

export async function adapt(session: ClusterSession, p: AdaptParams): Promise<AdaptReply> {
  if (p.off) {
    if (session.stopAdaptive()) say(session, 'adaptive off: the worker count stays where it is');
    return { enabled: false };
  }
  const spec = mergeAdaptive(session.adaptive?.spec ?? session.spec.adaptive, p.spec);
  if (spec.minimum > spec.maximum) {
    // A bound left out keeps the one in force, which may be the one in the way.
    throw new UsageError(`adapt: --min ${spec.minimum} is above --max ${spec.maximum}`, {
      hint: 'give a --min at most --max (a bound you leave out keeps the value in force: sshcluster status shows it)',
    });
  }
  // A dry run steps with the scheduler's running target_duration too, and says so.
  const warnings = keepTargetDuration(session, spec, p.spec.targetDurationMs);
  const loop = session.adaptiveLoop(spec);
  // With memory_limit auto, a worker's limit is what the registered ones report.
  const registered =
    spec.maximumMemory === undefined && spec.minimumMemory === undefined
      ? []
      : ((await session.client?.identityOrWorkers().catch(() => undefined))?.workers ?? []);
  const perWorker = newWorkerSize(session.spec.workerHosts[0]?.workerOptions, registered);
  const refusal = adaptiveRefusal(spec, perWorker);
  if (refusal) throw new UsageError(refusal.message, { hint: refusal.hint });
  const slots = slotsWarning(workerBounds(spec, perWorker), session.spec.workerHosts);
  if (slots) warnings.push(slots);
  if (p.dryRun) {
    const r = await loop.stepOnce(true);
    const d = r.decision;
    const detail =
      d.status === 'up'
        ? `up by ${d.n - r.current}`
        : d.status === 'down'
          ? `down: retire ${d.workers.join(', ')}`
          : 'none';
    return {
      enabled: session.adaptive?.enabled ?? false,
      dryRun: { target: r.target, decision: detail, reason: r.reason },
      ...(warnings.length ? { warnings } : {}),
    };
  }
  for (const message of warnings) session.bus.emit({ kind: 'notice', level: 'warning', message });
  session.startAdaptive(spec);
  say(session, `adaptive on: ${adaptiveSettingsText(spec)}`);
  return { enabled: true, spec, ...(warnings.length ? { warnings } : {}) };
}

/** A change asked for (adapt, the dashboard's a key), for the events view and `status --json` events (adaptive's own steps are there too). */
function say(session: ClusterSession, message: string): void {
  session.bus.emit({ kind: 'notice', level: 'info', message });
}
