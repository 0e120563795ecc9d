import { describe, expect, it } from 'vitest';
import { localNotice } from '../../../../src/app/commands/up-notices.js';
import type { UpPlan } from '../../../../src/app/commands/up-prepare.js';
import { localClusterSpec } from '../../../../src/config/local.js';
import { EventBus, type ClusterEvent } from '../../../../src/events/types.js';

function noticeFor(nworkers: number): string {
  const bus = new EventBus();
  const said: ClusterEvent[] = [];
  bus.on((e) => said.push(e));
  const spec = localClusterSpec({ cores: 2, memoryBytes: 0, python: 'python3', nworkers });
  localNotice(bus, { spec, previous: undefined } as UpPlan);
  return said.map((e) => (e.kind === 'notice' ? e.message : e.kind)).join('\n');
}

describe("up's notice of a local cluster", () => {
  it('counts its workers in words that agree', () => {
    expect(noticeFor(1)).toBe('Local cluster on this machine (1 worker, python python3)');
    expect(noticeFor(2)).toBe('Local cluster on this machine (2 workers, python python3)');
  });
});
