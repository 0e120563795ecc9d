// hello, placeable and the owner lease over a real control socket: the lease ends with
// the connection that took it, and the grace runs on the session's (injected) clock.
import { afterEach, describe, expect, it } from 'vitest';
import { ClusterSession } from '../../../../src/app/controller/cluster-session.js';
import type { ControlApi } from '../../../../src/app/controller/control-api.js';
import { ControlEndpoint, pathsFor } from '../../../../src/app/controller/control-endpoint.js';
import { connectControl } from '../../../../src/control/client.js';
import { EventBus } from '../../../../src/events/types.js';
import { CONTROL_PROTOCOL, VERSION } from '../../../../src/version.js';
import { FakeClock, flush } from '../../../unit/cluster/fakes.js';
import { testSpec } from '../../../unit/config/spec-fixture.js';
import { testContext, type TestContext } from '../../../unit/app/context-fixture.js';

describe('control endpoint: hello, placeable, lease', () => {
  let ctx: TestContext;
  let ep: ControlEndpoint | undefined;
  afterEach(async () => {
    await ep?.close(true);
    ctx.cleanup();
  });

  async function started() {
    ctx = testContext();
    const clock = new FakeClock();
    const stops: string[] = [];
    const session = new ClusterSession({
      spec: testSpec({ workers: ['n1'] }),
      clusterId: 'c0ffee',
      bus: new EventBus(),
      clock,
      fanout: 1,
      requireAll: false,
      readyTimeoutMs: 1_000,
      openShell: () => Promise.reject(new Error('this test connects to no host')),
    });
    ep = new ControlEndpoint(pathsFor(ctx, session.spec.name), {
      session,
      clusterId: 'c0ffee',
      pid: process.pid,
      runId: 'r1',
      requestStop: async (reason) => (stops.push(reason), { forced: [], leftover: [] }),
    });
    await ep.start();
    const connect = () => connectControl<ControlApi>(ep!.socket, { timeoutMs: 5_000 });
    return { clock, stops, connect };
  }

  it('hello says the protocol major and the version', async () => {
    const { connect } = await started();
    const c = await connect();
    expect(await c.call('hello')).toEqual({ protocol: CONTROL_PROTOCOL, version: VERSION });
    c.close();
  });

  it('placeable says what scale n would place, changing nothing', async () => {
    const { connect } = await started();
    const c = await connect();
    const before = (await c.call('status')).desiredWorkers;
    const r = await c.call('placeable', { n: 1000 });
    expect(r.desired).toBeLessThan(1000);
    expect(r.message).toMatch(/only \d+ can be placed/);
    expect((await c.call('status')).desiredWorkers).toBe(before);
    c.close();
  });

  it('an owner connection that closes without release takes the cluster down after the grace', async () => {
    const { clock, stops, connect } = await started();
    const owner = await connect();
    expect(await owner.call('lease', { graceMs: 60_000 })).toEqual({ held: 1, graceMs: 60_000 });
    owner.close(); // what a killed kernel's socket does
    await waitFor(() => ep!.leaseState().expiresAt !== undefined);
    expect(ep!.leaseState()).toEqual({ held: 0, expiresAt: clock.now() + 60_000 });
    await clock.advance(59_000);
    expect(stops).toEqual([]);
    await clock.advance(1_000);
    expect(stops).toEqual(['owner lease expired']);
  });

  it('a released lease, then a closed connection, leaves the cluster up', async () => {
    const { clock, stops, connect } = await started();
    const owner = await connect();
    await owner.call('lease', { graceMs: 1_000 });
    expect(await owner.call('release')).toEqual({ released: true });
    owner.close();
    await flush();
    await clock.advance(10_000);
    expect(stops).toEqual([]);
  });
});

async function waitFor(cond: () => boolean): Promise<void> {
  while (!cond()) await new Promise((r) => setTimeout(r, 5));
}
