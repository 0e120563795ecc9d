// Every way a running cluster's life ends (cluster/life.ts), over a fake port: the exit
// code, the notices and the teardown's reason, in order.
import { describe, expect, it } from 'vitest';
import { runLife, type LifeEnd, type LifePorts } from '../../../src/cluster/life.js';
import type { TeardownResult } from '../../../src/cluster/start-stop/teardown.js';
import type { ClusterEvent } from '../../../src/events/types.js';
import { flush } from './fakes.js';

function deferred<T = void>(): { promise: Promise<T>; resolve: (v: T) => void; reject: (e: unknown) => void } {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

const clean: TeardownResult = { forced: [], leftover: [] };
const dirty: TeardownResult = { forced: [], leftover: [{ host: 'n1', pids: [42] }] };

function fakeLife(
  o: {
    adaptive?: boolean;
    owed?: string[];
    leftover?: boolean;
    rollFails?: boolean;
    serveFails?: boolean;
    stopOnServe?: boolean;
  } = {},
) {
  const stop = new AbortController();
  const started = deferred();
  const exit = deferred<unknown>();
  const steps: string[] = [];
  const events: ClusterEvent[] = [];
  let shutdown: (() => void) | undefined;
  const ports: LifePorts = {
    stop: stop.signal,
    start: () => (steps.push('start'), started.promise),
    teardown: async (reason) => {
      steps.push(`teardown: ${reason}`);
      // As the session's: a start-up still waiting ends with the teardown.
      started.reject(new Error('aborted'));
      return o.leftover ? dirty : clean;
    },
    serve: async () => {
      steps.push('serve');
      if (o.stopOnServe) stop.abort('Ctrl-C');
      if (o.serveFails) throw new Error('socket taken');
    },
    startAdaptive: o.adaptive ? () => void steps.push('adaptive') : undefined,
    owedRoll: () => (steps.push('owed'), o.owed ?? []),
    resumeRoll: async (names) => {
      steps.push(`roll ${names.join(',')}`);
      if (o.rollFails) throw new Error('host gone');
    },
    schedulerExit: () => exit.promise,
    onClientShutdown: (fn) => {
      shutdown = fn;
      return () => (steps.push('unwatch'), (shutdown = undefined));
    },
    schedulerStopAsked: () => void steps.push('stop asked'),
    emit: (e) => void events.push(e),
  };
  let end: LifeEnd | undefined;
  const ended = runLife(ports).then((e) => (end = e));
  return {
    stop,
    started,
    exit,
    steps,
    ended,
    end: () => end,
    clientShutdown: () => shutdown?.(),
    notices: () => events.flatMap((e) => (e.kind === 'notice' ? [`${e.level}: ${e.message}`] : [])),
  };
}

describe('a running cluster life', () => {
  it('a stop during start-up tears down with its reason and exits 130', async () => {
    const l = fakeLife();
    l.stop.abort('Ctrl-C');
    await l.ended;
    expect(l.end()).toEqual({ kind: 'exit', code: 130, result: clean });
    expect(l.steps).toEqual(['start', 'teardown: Ctrl-C']);
  });

  it('once up: owed roll read, then serve, adaptive, the roll; a stop then exits 0 with nothing left', async () => {
    const l = fakeLife({ adaptive: true, owed: ['n1-0', 'n2-0'] });
    l.started.resolve();
    await flush();
    expect(l.steps).toEqual(['start', 'owed', 'serve', 'adaptive', 'roll n1-0,n2-0']);
    expect(l.notices()).toEqual([
      'info: continuing the interrupted apply: restarting 2 worker(s) onto the spec in force',
    ]);
    expect(l.end()).toBeUndefined();
    l.stop.abort('sshcluster down');
    await l.ended;
    expect(l.end()).toEqual({ kind: 'exit', code: 0, result: clean });
    expect(l.steps.at(-1)).toBe('teardown: sshcluster down');
  });

  it('a stop that leaves processes behind exits 1', async () => {
    const l = fakeLife({ leftover: true });
    l.started.resolve();
    await flush();
    l.stop.abort('SIGTERM');
    await l.ended;
    expect(l.end()).toEqual({ kind: 'exit', code: 1, result: dirty });
  });

  it("a client's Client.shutdown() is a down that was asked for: exit 0, or 1 with leftovers", async () => {
    for (const leftover of [false, true]) {
      const l = fakeLife({ leftover });
      l.started.resolve();
      await flush();
      l.clientShutdown();
      expect(l.steps.at(-1)).toBe('stop asked');
      l.exit.resolve(undefined);
      await l.ended;
      expect(l.end()).toMatchObject({ kind: 'exit', code: leftover ? 1 : 0 });
      expect(l.notices()).toEqual(['info: a client shut the scheduler down (Client.shutdown()); stopping the cluster']);
      // Said as what asked for it ("Stopping cluster (Client.shutdown()) …"), not as a `sshcluster down`.
      expect(l.steps.slice(-2)).toEqual(['unwatch', 'teardown: Client.shutdown()']);
    }
  });

  it('a scheduler that dies unasked: an error notice, teardown, exit 1', async () => {
    const l = fakeLife();
    l.started.resolve();
    await flush();
    l.exit.resolve(undefined);
    await l.ended;
    expect(l.end()).toEqual({ kind: 'exit', code: 1, result: clean });
    expect(l.notices()).toEqual(['error: the scheduler exited; stopping the cluster']);
    expect(l.steps.slice(-2)).toEqual(['unwatch', 'teardown: scheduler exited']);
  });

  it("the scheduler's host lost (an exit with no status) is said as that, not as the scheduler's death", async () => {
    // Found by the h40ssh trial: sshd of the scheduler's host restarted; the controller said
    // "the scheduler exited" while the scheduler ran on there.
    const l = fakeLife();
    l.started.resolve();
    await flush();
    l.exit.resolve({ code: null, signal: null });
    await l.ended;
    expect(l.end()).toEqual({ kind: 'exit', code: 1, result: clean });
    expect(l.notices()).toEqual([
      "error: lost the connection to the scheduler's host (the scheduler may still run there); stopping the cluster",
    ]);
    expect(l.steps.slice(-2)).toEqual(['unwatch', 'teardown: scheduler host lost']);
    const d = fakeLife();
    d.started.resolve();
    await flush();
    d.exit.resolve({ code: 1, signal: null });
    await d.ended;
    expect(d.notices()).toEqual(['error: the scheduler exited; stopping the cluster']);
  });

  it('a failed start tears down and hands the error back; 130 instead when a stop was asked', async () => {
    const l = fakeLife();
    const boom = new Error('port already in use');
    l.started.reject(boom);
    await l.ended;
    expect(l.end()).toEqual({ kind: 'error', error: boom, result: clean });
    expect(l.steps).toEqual(['start', 'teardown: failure']);
  });

  it('a control endpoint that cannot listen: teardown as a failure, the error back; 130 when stopping', async () => {
    const l = fakeLife({ serveFails: true });
    l.started.resolve();
    await l.ended;
    expect(l.end()).toMatchObject({ kind: 'error', error: new Error('socket taken') });
    expect(l.steps.slice(-2)).toEqual(['serve', 'teardown: failure']);

    const s = fakeLife({ serveFails: true, stopOnServe: true });
    s.started.resolve();
    await s.ended;
    expect(s.end()).toEqual({ kind: 'exit', code: 130, result: clean });
  });

  it('a stop while the endpoint starts: adaptive is not started (the stopping cluster would refuse it), the stop tears down', async () => {
    const l = fakeLife({ adaptive: true, stopOnServe: true });
    l.started.resolve();
    await l.ended;
    expect(l.steps).toEqual(['start', 'owed', 'serve', 'teardown: Ctrl-C']);
    expect(l.end()).toEqual({ kind: 'exit', code: 0, result: clean });
  });

  it('a rolling restart that fails says so and the cluster runs on', async () => {
    const l = fakeLife({ owed: ['n1-0'], rollFails: true });
    l.started.resolve();
    await flush();
    expect(l.notices().at(-1)).toBe('error: rolling restart failed: Error: host gone');
    expect(l.end()).toBeUndefined();
    l.stop.abort('q in the dashboard');
    await l.ended;
    expect(l.end()?.kind).toBe('exit');
  });
});
