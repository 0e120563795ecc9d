// Why no more workers fit on a set of hosts, folded into a few short phrases for the
// one-line unmet-demand message: hosts that cannot take work now ("gpu2 unreachable",
// "n3, n4 draining"), hosts whose max_workers slots are used ("local: 2 slots", or
// "12 slots on 6 hosts"), then the bounds that stopped placement ("maximum 4").
import { listNames, plural } from '../../cluster/placement/resource-amounts.js';

export type Blocker = { kind: 'unavailable'; why: string } | { kind: 'full' } | { kind: 'bound'; why: string };

interface Blocked {
  host: { name: string; maxWorkers: number };
  blocker: Blocker | undefined;
}

export function blockedReasons(hosts: readonly Blocked[]): string[] {
  const unavailable = new Map<string, string[]>();
  const full: Blocked['host'][] = [];
  const bounds = new Set<string>();
  const seen = new Set<string>();
  for (const { host, blocker } of hosts) {
    if (!blocker || seen.has(host.name)) continue;
    seen.add(host.name);
    switch (blocker.kind) {
      case 'unavailable':
        unavailable.set(blocker.why, [...(unavailable.get(blocker.why) ?? []), host.name]);
        break;
      case 'full':
        full.push(host);
        break;
      case 'bound':
        bounds.add(blocker.why);
        break;
    }
  }
  const out = [...unavailable].map(([why, names]) => `${listNames(names)} ${why}`);
  if (full.length > 0) out.push(slots(full));
  return [...out, ...bounds];
}

function slots(full: readonly Blocked['host'][]): string {
  if (full.length <= 3) return full.map((h) => `${h.name}: ${plural(h.maxWorkers, 'slot')}`).join(', ');
  const sum = full.reduce((a, h) => a + h.maxWorkers, 0);
  return `${plural(sum, 'slot')} on ${full.length} hosts`;
}

export function joinReasons(reasons: readonly string[]): string {
  return reasons.length > 0 ? reasons.join('; ') : 'no host to place on';
}
