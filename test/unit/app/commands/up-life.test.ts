// The real ports of a cluster's life (up-life.ts): which scheduler line is a client's
// shutdown, and the held cluster-up told to a detached parent only once the endpoint listens.
import { describe, expect, it } from 'vitest';
import { lifePorts } from '../../../../src/app/commands/up-life.js';
import type { UpPlan } from '../../../../src/app/commands/up-prepare.js';
import type { ClusterSession } from '../../../../src/app/controller/cluster-session.js';
import type { ControlEndpoint } from '../../../../src/app/controller/control-endpoint.js';
import { EventBus, type ClusterEvent } from '../../../../src/events/types.js';
import { testSpec } from '../../config/spec-fixture.js';

const TERMINATE =
  '2026-11-28 13:02:20,963 - distributed.sshcluster.demand - INFO - sshcluster: a client asked the scheduler to terminate';

function ports(held?: ClusterEvent) {
  const bus = new EventBus();
  const steps: string[] = [];
  const reported: ClusterEvent[] = [];
  const session = { schedulerStopAsked: () => steps.push('asked') } as unknown as ClusterSession;
  const controller = { start: async () => void steps.push('listening') } as unknown as ControlEndpoint;
  const plan = { spec: testSpec({ workers: ['n1'] }), previous: undefined } as unknown as UpPlan;
  const p = lifePorts(plan, {
    session,
    controller,
    outputs: { bus, out: undefined as never, heldUp: () => held },
    signal: new AbortController().signal,
    written: Promise.resolve(),
    readyTimeoutMs: 1_000,
    report: (e) => void (steps.push(`reported ${e.kind}`), reported.push(e)),
  });
  return { bus, steps, reported, p };
}

const line = (name: string, text: string): ClusterEvent => ({
  kind: 'process-line',
  host: 'n0',
  name,
  stream: 'stderr',
  line: text,
});

describe("up's life ports", () => {
  it("hear a client's shutdown only in the scheduler's preload line", () => {
    const { bus, p } = ports();
    let heard = 0;
    const off = p.onClientShutdown(() => heard++);
    bus.emit(line('n1-0', TERMINATE));
    bus.emit(line('scheduler', 'sshcluster: a client asked the scheduler to terminate'));
    expect(heard).toBe(0);
    bus.emit(line('scheduler', TERMINATE));
    expect(heard).toBe(1);
    off();
    bus.emit(line('scheduler', TERMINATE));
    expect(heard).toBe(1);
  });

  it('tell a detached parent of cluster-up after the control endpoint listens', async () => {
    const up = { kind: 'cluster-up' } as ClusterEvent;
    const { steps, p } = ports(up);
    await p.serve();
    expect(steps).toEqual(['listening', 'reported cluster-up']);
    const none = ports();
    await none.p.serve();
    expect(none.steps).toEqual(['listening']);
  });
});
