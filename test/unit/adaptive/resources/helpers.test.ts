import { describe, expect, it } from 'vitest';
import type { UnmetDemand } from '../../../../src/adaptive/resources/resource-placement.js';
import { nameAdds } from '../../../../src/cluster/placement/new-worker-names.js';
import { unmetNotices, type Unmet } from '../../../../src/adaptive/resources/unmet-notices.js';

const u = (what: string, line: string, placeable = 0, reasons: string[] = []): UnmetDemand => ({
  what,
  want: 0,
  placeable,
  reasons,
  line,
});
const plainAt = (target: number, placeable = 2, reason = 'local: 2 slots') =>
  u('plain', `target ${target}, ${placeable} placeable (${reason})`, placeable, [reason]);

describe('unmetNotices', () => {
  it('says a line once over many ticks, again when what can be placed changes, and notes when it clears', () => {
    let last: ReadonlyMap<string, Unmet> = new Map();
    const said: string[] = [];
    for (let tick = 0; tick < 41; tick++) {
      const n = unmetNotices(last, [plainAt(4)]);
      said.push(...n.said);
      last = n.current;
    }
    expect(said).toEqual(['target 4, 2 placeable (local: 2 slots)']);
    const gpu = u('GPU', 'want 1 GPU worker, 0 placeable: no host declares GPU', 0, ['no host declares GPU']);
    const changed = unmetNotices(last, [plainAt(3, 1, 'local: 1 slot'), gpu]);
    expect(changed.said).toEqual(['target 3, 1 placeable (local: 1 slot)', gpu.line]);
    const gone = unmetNotices(changed.current, [gpu]);
    expect([gone.said, gone.cleared]).toEqual([[], ['plain']]);
  });

  // helper-23's trial: the line was said again at every step of a ramp, only its target moving.
  it('does not say it again when only the target moves, and keeps the newest line for status', () => {
    let last: ReadonlyMap<string, Unmet> = new Map();
    const said: string[] = [];
    for (const target of [4, 5, 6, 7, 6, 5]) {
      const n = unmetNotices(last, [plainAt(target)]);
      said.push(...n.said);
      last = n.current;
    }
    expect(said).toEqual(['target 4, 2 placeable (local: 2 slots)']);
    expect(last.get('plain')?.line).toBe('target 5, 2 placeable (local: 2 slots)');
  });

  it('says demand is met only once it has been for clearAfter ticks in a row, and not again when it comes back meanwhile', () => {
    const gpu = u('GPU', 'want 3 GPU workers, 2 placeable: group gpu maximum 2');
    const said: string[] = [];
    const cleared: string[] = [];
    let last: ReadonlyMap<string, Unmet> = new Map();
    // Dask's target moves: unmet, met, met, unmet, … then met for good.
    for (const now of [[gpu], [], [], [gpu], [], [gpu], [], [], []]) {
      const n = unmetNotices(last, now, 3);
      said.push(...n.said);
      cleared.push(...n.cleared);
      last = n.current;
    }
    expect(said).toEqual([gpu.line]);
    expect(cleared).toEqual(['GPU']);
    expect(last.size).toBe(0);
  });
});

describe('nameAdds', () => {
  it('names added workers <host>-<i> with the lowest free index per host', () => {
    expect(
      nameAdds(
        [
          { host: 'gpu', count: 2 },
          { host: 'c1', count: 1 },
        ],
        [{ name: 'gpu-0' }, { name: 'gpu-2' }],
      ),
    ).toEqual([
      { name: 'gpu-1', host: 'gpu' },
      { name: 'gpu-3', host: 'gpu' },
      { name: 'c1-0', host: 'c1' },
    ]);
  });
});
