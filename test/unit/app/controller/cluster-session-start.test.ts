// start() connects every host at once, but launches nothing before `launchAfter` settles:
// `up` passes its first write of the state file there, which `down` needs to find every
// process, and which no longer holds back the handshakes.
import { describe, expect, it } from 'vitest';
import { ClusterSession } from '../../../../src/app/controller/cluster-session.js';
import { EventBus, type ClusterEvent } from '../../../../src/events/types.js';
import type { ShellPort } from '../../../../src/ssh/shell-port.js';
import { testSpec } from '../../config/spec-fixture.js';

/** Until the event loop has nothing left that is already due (fakes settle in microtasks). */
const settled = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
};

describe('ClusterSession.start', () => {
  it('connects every host at once and launches nothing until launchAfter settles', async () => {
    const execs: string[] = [];
    const shell: ShellPort = {
      exec: async (command) => {
        execs.push(command);
        throw new Error('this test starts no process');
      },
      run: async () => ({ code: 0, stdout: '', stderr: '' }),
      forwardOut: () => Promise.reject(new Error('this test forwards nothing')),
      onClose: () => {},
      close: () => {},
    };
    const bus = new EventBus();
    const connected = new Set<string>();
    bus.on((e: ClusterEvent) => e.kind === 'host-state' && e.state === 'starting' && connected.add(e.host));
    const session = new ClusterSession({
      spec: testSpec({ workers: ['n1', 'n2'] }),
      clusterId: 'c0ffee',
      bus,
      fanout: 8,
      requireAll: false,
      readyTimeoutMs: 1_000,
      openShell: async () => shell,
    });
    let release!: () => void;
    const written = new Promise<void>((r) => (release = r));
    const started = session.start(written).then(
      () => 'up',
      (err: unknown) => String(err),
    );

    await settled();
    expect([...connected].sort()).toEqual(['n0', 'n1', 'n2']);
    expect(execs).toEqual([]);

    release();
    await settled();
    // The scheduler's host and each worker host: one launch each, once released.
    expect(execs.length).toBeGreaterThanOrEqual(3);
    await session.teardown({ reason: 'test', force: true });
    expect(await started).not.toBe('up');
  });
});
