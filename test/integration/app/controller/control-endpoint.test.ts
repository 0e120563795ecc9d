// The controller's state file ends with it: after a clean close nothing writes it back,
// or the next `up` of that name would adopt this cluster's spec from it (its adaptive
// settings instead of the host file's: a CI failure, "expected 3 to be 20").
import fs from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ClusterSession } from '../../../../src/app/controller/cluster-session.js';
import type { ControlApi } from '../../../../src/app/controller/control-api.js';
import { ControlEndpoint, pathsFor } from '../../../../src/app/controller/control-endpoint.js';
import { connectControl } from '../../../../src/control/client.js';
import type { StatusJson } from '../../../../src/control/status-document.js';
import type { SchedulerClient } from '../../../../src/dask/scheduler-client.js';
import { EventBus } from '../../../../src/events/types.js';
import { testSpec } from '../../../unit/config/spec-fixture.js';
import { testContext, type TestContext } from '../../../unit/app/context-fixture.js';

describe('ControlEndpoint.close', () => {
  let ctx: TestContext;
  afterEach(() => {
    vi.useRealTimers();
    ctx.cleanup();
  });

  function endpoint(runId = 'r1', orphanGraceS?: number) {
    ctx = testContext();
    const bus = new EventBus();
    const session = new ClusterSession({
      spec: testSpec({ workers: ['n1'] }),
      clusterId: 'c0ffee',
      bus,
      fanout: 1,
      requireAll: false,
      readyTimeoutMs: 1_000,
      openShell: () => Promise.reject(new Error('this test connects to no host')),
    });
    const paths = pathsFor(ctx, session.spec.name);
    const ep = new ControlEndpoint(paths, {
      session,
      clusterId: 'c0ffee',
      pid: process.pid,
      requestStop: async () => ({ forced: [], leftover: [] }),
      runId,
      orphanGraceS,
    });
    return { ep, bus, stateFile: paths.stateFile, paths };
  }

  it("records how long its processes outlive it (0: a foreground up's stop with it), for status once it is gone", () => {
    expect(endpoint('r1', 0).ep.state().controller?.orphanGraceS).toBe(0);
    expect(endpoint('r1', 300).ep.state().controller?.orphanGraceS).toBe(300);
  });

  it('clean: a save under way and one scheduled by the last events do not bring the state file back', async () => {
    const { ep, bus, stateFile } = endpoint();
    await ep.start();
    expect(fs.existsSync(stateFile)).toBe(true);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    // The teardown's last events: a save scheduled, and one already writing.
    bus.emit({ kind: 'process-exit', host: 'n1', name: 'worker-n1-0', code: 0, signal: null, expected: true });
    const underWay = ep.save();
    await ep.close(true);
    await underWay;
    vi.runAllTimers();
    await ep.save();
    expect(fs.existsSync(stateFile)).toBe(false);
  });

  it('clean after a start that recorded no line (a failed up): neither the empty run nor the dirs stay', async () => {
    const { ep, paths } = endpoint('20260101T000000Z-abcdef');
    await ep.save();
    await ep.recordLogs();
    expect(fs.readdirSync(paths.logsDir)).toEqual(['20260101T000000Z-abcdef']);
    await ep.close(true);
    expect(fs.existsSync(paths.dir)).toBe(false);
  });

  it("clean with lines recorded (the failure's output): the run stays for logs, only the state file goes", async () => {
    const { ep, bus, paths, stateFile } = endpoint('20260101T000000Z-abcdef');
    await ep.save();
    await ep.recordLogs();
    bus.emit({
      kind: 'process-line',
      host: 'n0',
      name: 'scheduler',
      stream: 'stderr',
      line: 'OSError: [Errno 98] Address already in use',
    });
    await ep.close(true);
    expect(fs.existsSync(stateFile)).toBe(false);
    expect(fs.readFileSync(`${paths.logsDir}/20260101T000000Z-abcdef/scheduler.log`, 'utf8')).toBe(
      'OSError: [Errno 98] Address already in use\n',
    );
  });

  it('unclean: the state file stays, with the last state, for down to use', async () => {
    const { ep, stateFile } = endpoint();
    await ep.start();
    fs.rmSync(stateFile);
    await ep.close(false);
    expect(JSON.parse(fs.readFileSync(stateFile, 'utf8'))).toMatchObject({
      clusterId: 'c0ffee',
      controller: { pid: process.pid },
    });
  });
});

describe('ControlEndpoint subscribe', () => {
  let ctx: TestContext;
  afterEach(() => ctx.cleanup());

  it("answers with the status as status does, the scheduler's figures included (attach --no-tui printed '-' for them)", async () => {
    ctx = testContext();
    const session = new ClusterSession({
      spec: testSpec({ workers: ['n1'] }),
      clusterId: 'c0ffee',
      bus: new EventBus(),
      fanout: 1,
      requireAll: false,
      readyTimeoutMs: 1_000,
      openShell: () => Promise.reject(new Error('this test connects to no host')),
    });
    // The cluster's task figures (workers not started here are left as they are: stopped).
    const figures = {
      tasks: { memory: 3 },
      progress: null,
      clients: 1,
      scheduler: { cpu: 7, memoryBytes: 90 * 2 ** 20 },
    };
    // The scheduler's client start-up would have made (session.client is read-only).
    const scheduler = { demand: async () => ({ groups: [], workers: [], figures }) } as unknown as SchedulerClient;
    Object.defineProperty(session, 'client', { value: scheduler });
    const paths = pathsFor(ctx, session.spec.name);
    const ep = new ControlEndpoint(paths, {
      session,
      clusterId: 'c0ffee',
      pid: process.pid,
      requestStop: async () => ({ forced: [], leftover: [] }),
      runId: 'r1',
    });
    await ep.start();
    const client = await connectControl<ControlApi>(ep.socket, { timeoutMs: 2_000 });
    try {
      let first: StatusJson | undefined;
      const following = client.subscribe(() => undefined, {
        onSubscribed: (r) => ((first = r.status), client.close()),
      });
      await following.catch(() => undefined);
      expect(first?.tasks).toEqual({
        byState: { memory: 3 },
        progress: null,
        clients: 1,
        schedulerCpu: 7,
        schedulerMemoryBytes: 90 * 2 ** 20,
      });
    } finally {
      client.close();
      await ep.close(true);
    }
  });
});
