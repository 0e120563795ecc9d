import { describe, expect, it } from 'vitest';
import type { UnmetDemand } from '../../../../src/cluster/resources/placement.js';
import { nameAdds } from '../../../../src/cluster/resources/names.js';
import { unmetNotices } from '../../../../src/cluster/resources/unmet-notices.js';

const u = (what: string, line: string): UnmetDemand => ({ what, want: 0, placeable: 0, reasons: [], line });

describe('unmetNotices', () => {
  it('says a line once over many ticks, again when it changes, and notes when it clears', () => {
    const plain = u('plain', 'target 4, 2 placeable (local: 2 slots)');
    let last: ReadonlyMap<string, string> = new Map();
    const said: string[] = [];
    for (let tick = 0; tick < 41; tick++) {
      const n = unmetNotices(last, [plain]);
      said.push(...n.said);
      last = n.current;
    }
    expect(said).toEqual(['target 4, 2 placeable (local: 2 slots)']);
    const changed = unmetNotices(last, [u('plain', 'target 3, 2 placeable (local: 2 slots)'), u('GPU', 'want 1 GPU worker, 0 placeable: no host declares GPU')]);
    expect(changed.said).toEqual(['target 3, 2 placeable (local: 2 slots)', 'want 1 GPU worker, 0 placeable: no host declares GPU']);
    const gone = unmetNotices(changed.current, [u('GPU', 'want 1 GPU worker, 0 placeable: no host declares GPU')]);
    expect([gone.said, gone.cleared]).toEqual([[], ['plain']]);
  });
});

describe('nameAdds', () => {
  it('names added workers <host>-<i> with the lowest free index per host', () => {
    expect(nameAdds([{ host: 'gpu', count: 2 }, { host: 'c1', count: 1 }], [{ name: 'gpu-0' }, { name: 'gpu-2' }])).toEqual([
      { name: 'gpu-1', host: 'gpu' }, { name: 'gpu-3', host: 'gpu' }, { name: 'c1-0', host: 'c1' },
    ]);
  });
});
