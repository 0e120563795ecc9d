// Names for the workers placeByResource adds: `<host>-<i>` with the lowest i not taken,
// as placeWorkers names them, so a resource-placed worker looks like any other.
import { workerName } from '../plan-actions.js';
import type { PlacedWorker } from './placement.js';

export function nameAdds(
  adds: readonly { host: string; count: number }[],
  current: readonly { name: string }[],
): PlacedWorker[] {
  const taken = new Set(current.map((w) => w.name));
  const out: PlacedWorker[] = [];
  for (const { host, count } of adds) {
    for (let i = 0, named = 0; named < count; i++) {
      const name = workerName(host, i);
      if (taken.has(name)) continue;
      taken.add(name);
      out.push({ name, host });
      named += 1;
    }
  }
  return out;
}
