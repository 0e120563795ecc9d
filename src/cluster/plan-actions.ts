// plan(desired, observed) → actions. Pure: the reconciler applies the actions.
import type { ClusterSpec } from '../config/spec.js';

export type Role = 'scheduler' | 'worker';

export interface DesiredProcess {
  name: string;
  host: string;
  role: Role;
}

export type ObservedState = 'starting' | 'running' | 'stopping' | 'exited';

export interface ObservedProcess {
  name: string;
  host: string;
  role: Role;
  state: ObservedState;
}

export type Action =
  { kind: 'start'; process: DesiredProcess } | { kind: 'stop'; name: string; host: string; reason: 'not-desired' };

/** Worker names are `<host>-<i>` so the scheduler's names match ours. */
export function workerName(host: string, index: number): string {
  return `${host}-${index}`;
}

export const SCHEDULER_NAME = 'scheduler';

export function desiredProcesses(spec: ClusterSpec): DesiredProcess[] {
  const out: DesiredProcess[] = [{ name: SCHEDULER_NAME, host: spec.schedulerHost.name, role: 'scheduler' }];
  for (const h of spec.workerHosts) {
    for (let i = 0; i < h.workerOptions.nworkers; i++) {
      out.push({ name: workerName(h.name, i), host: h.name, role: 'worker' });
    }
  }
  return out;
}

/**
 * Start what is desired and not alive on a usable host; stop what is alive and not
 * desired. The scheduler is started before workers in the list, but workers do not
 * wait for it: their start is not ordered after its readiness.
 */
export function plan(
  desired: DesiredProcess[],
  observed: ObservedProcess[],
  unusableHosts: ReadonlySet<string> = new Set(),
): Action[] {
  const alive = new Map(observed.filter((o) => o.state !== 'exited').map((o) => [o.name, o]));
  const wanted = new Set(desired.map((d) => d.name));
  const actions: Action[] = [];
  for (const d of desired) {
    if (!alive.has(d.name) && !unusableHosts.has(d.host)) actions.push({ kind: 'start', process: d });
  }
  for (const o of alive.values()) {
    if (!wanted.has(o.name) && o.state !== 'stopping') {
      actions.push({ kind: 'stop', name: o.name, host: o.host, reason: 'not-desired' });
    }
  }
  return actions;
}
