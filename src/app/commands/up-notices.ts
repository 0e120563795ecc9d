// What `up` says about its plan before the cluster starts: a local cluster's size, a
// dead controller's processes adopted, a host file that differs from what they run.
import { plural } from '../../cluster/placement/resource-amounts.js';
import type { EventBus } from '../../events/types.js';
import type { UpPlan } from './up-prepare.js';

/** Said first, before the certificates are made. */
export function localNotice(bus: EventBus, { spec, previous }: UpPlan): void {
  if (!spec.local) return;
  const { adaptive } = spec;
  const workers = adaptive
    ? `adaptive, ${adaptive.minimum} to ${Number.isFinite(adaptive.maximum) ? adaptive.maximum : 'any number of'} workers`
    : plural(previous?.desiredWorkers ?? spec.workerHosts[0]?.workerOptions.nworkers ?? 0, 'worker'); // re-adopted: the size it was kept at
  bus.emit({
    kind: 'notice',
    level: 'info',
    message: `Local cluster on this machine (${workers}, python ${spec.schedulerHost.remotePython})`,
  });
}

/** Said once the output (and a detached parent) listens. */
export function adoptionNotices(bus: EventBus, { spec, previous, kept }: UpPlan, file: string | undefined): void {
  if (previous)
    bus.emit({
      kind: 'notice',
      level: 'info',
      message: `the controller of "${spec.name}" (pid ${previous.controller?.pid ?? '?'}) is gone; adopting what it left running`,
    });
  if (kept)
    bus.emit({
      kind: 'notice',
      level: 'warning',
      message: `the host file differs from the spec the running processes have; keeping theirs (sshcluster plan ${file ?? 'FILE'} shows the difference, apply makes it)`,
    });
}
