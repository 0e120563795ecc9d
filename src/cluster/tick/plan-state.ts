// plan() over a ClusterState without copying its inputs: the same actions in the same
// order as plan(s.desired(), s.observed(), s.unusable()), in one pass over the desired
// list (kept by the state while it is unchanged) and one over the processes. The
// reconciler runs it only when the state's version moved (reconciler.ts); a test holds
// it to plan().
import type { ClusterState } from '../cluster-state.js';
import type { Action, DesiredProcess } from '../plan-actions.js';

/** The names of a desired list, kept while the list is the same array (ClusterState.desired). */
const namesOf = new WeakMap<readonly DesiredProcess[], Set<string>>();

function namesIn(desired: readonly DesiredProcess[]): Set<string> {
  let names = namesOf.get(desired);
  if (!names) {
    names = new Set(desired.map((d) => d.name));
    namesOf.set(desired, names);
  }
  return names;
}

export function planState(s: ClusterState, desired: readonly DesiredProcess[] = s.desired()): Action[] {
  const unusable = s.unusable();
  const actions: Action[] = [];
  // Indexed and forEach, not for-of: no iterator result per element (at 10,000 hosts,
  // 80,000 of them a plan, garbage the controller would carry until a full GC).
  for (let i = 0; i < desired.length; i++) {
    const d = desired[i]!;
    const t = s.processes.get(d.name);
    if ((!t || t.exit) && !unusable.has(d.host)) actions.push({ kind: 'start', process: { ...d } });
  }
  const wanted = namesIn(desired);
  s.processes.forEach((t) => {
    if (t.exit || t.stopping || wanted.has(t.desired.name)) return;
    actions.push({ kind: 'stop', name: t.desired.name, host: t.desired.host, reason: 'not-desired' });
  });
  return actions;
}
