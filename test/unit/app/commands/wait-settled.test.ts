// What scale, drain and apply say when the workers do not all run within --timeout:
// which are not running, and what their hosts are doing.
import { describe, expect, it } from 'vitest';
import { waitSettled } from '../../../../src/app/commands/cluster-clients.js';
import type { ControlApiClient } from '../../../../src/app/controller/control-api.js';
import type { StatusJson } from '../../../../src/control/status-document.js';

const status = {
  desiredWorkers: 2,
  hosts: [
    { name: 'h1', roles: ['worker'], state: 'up', lastError: null, workers: 1 },
    { name: 'h2', roles: ['worker'], state: 'connecting', lastError: 'connect EHOSTUNREACH 10.0.0.2:22', workers: 0 },
  ],
  workers: [
    { name: 'h1-0', host: 'h1', state: 'running' },
    { name: 'h2-0', host: 'h2', state: 'starting' },
  ],
} as unknown as StatusJson;
const client = { call: async () => status } as unknown as ControlApiClient;

/** A clock the wait steps on: each sleep moves it on at once, recorded. */
function fakeTime() {
  const t = { at: 0, sleeps: [] as number[] };
  return Object.assign(t, {
    now: () => t.at,
    sleep: async (ms: number) => void (t.sleeps.push(ms), (t.at += ms)),
  });
}

describe('waitSettled', () => {
  it('polls every half second until the workers settle, then returns the running count', async () => {
    const time = fakeTime();
    let calls = 0;
    const settling = {
      call: async () =>
        ++calls < 4 ? status : { ...status, workers: [status.workers[0], { ...status.workers[1], state: 'running' }] },
    } as unknown as ControlApiClient;
    expect(await waitSettled(settling, 'lab', undefined, 10_000, time)).toBe(2);
    expect(calls).toBe(4);
    expect(time.sleeps).toEqual([500, 500, 500]);
  });

  it("names the workers not running and their hosts' state when the time is up", async () => {
    const time = fakeTime();
    const err = await waitSettled(client, 'lab', undefined, 0, time).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err?.message).toBe(
      'lab: 1 of 2 worker(s) running after 0s; not running: h2-0 (starting) on h2 (connecting: connect EHOSTUNREACH 10.0.0.2:22)',
    );
    // One poll at the deadline, one half a second later, past it.
    expect(time.sleeps).toEqual([500]);
  });

  it('returns the running count once every wanted worker runs', async () => {
    const done = { ...status, desiredWorkers: 1, workers: [status.workers[0]] } as StatusJson;
    const time = fakeTime();
    expect(
      await waitSettled({ call: async () => done } as unknown as ControlApiClient, 'lab', undefined, 0, time),
    ).toBe(1);
    expect(time.sleeps).toEqual([]);
  });
});

describe('waitSettled, with a worker kept on a host that does not answer', () => {
  // h1 as above; h9 unreachable, its worker stopped.
  const down = {
    ...status,
    hosts: [
      status.hosts[0],
      {
        name: 'h9',
        roles: ['worker'],
        state: 'unreachable',
        lastError: 'no SSH handshake with h9:22 within 2s',
        workers: 0,
      },
    ],
    workers: [status.workers[0], { name: 'h9-0', host: 'h9', state: 'stopped' }],
  } as unknown as StatusJson;

  it('fails at once, not after --timeout, naming the worker and its host', async () => {
    let calls = 0;
    const c = { call: async () => (calls++, down) } as unknown as ControlApiClient;
    const time = fakeTime();
    const err = await waitSettled(c, 'lab', 2, 120_000, time).then(
      () => undefined,
      (e: unknown) => e as Error & { hint?: string },
    );
    expect(calls).toBe(1);
    expect(time.sleeps).toEqual([]);
    expect(err?.message).toBe(
      'lab: 1 of 2 worker(s) running; 1 wait for a host that does not answer; not running: h9-0 (stopped) on h9 (unreachable: no SSH handshake with h9:22 within 2s)',
    );
    expect(err?.hint).toMatch(/start when their host answers again/);
  });

  it('still waits while another worker is starting on a host that answers', async () => {
    const starting = {
      ...down,
      desiredWorkers: 3,
      hosts: [...down.hosts],
      workers: [...down.workers, { name: 'h1-1', host: 'h1', state: 'starting' }],
    } as unknown as StatusJson;
    const time = fakeTime();
    const err = await waitSettled(
      { call: async () => starting } as unknown as ControlApiClient,
      'lab',
      3,
      0,
      time,
    ).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err?.message).toMatch(
      /^lab: 1 of 3 worker\(s\) running after 0s; not running: h9-0 \(stopped\) on h9 \(unreachable: .*\), h1-1 \(starting\) on h1$/,
    );
    expect(time.sleeps).toEqual([500]);
  });
});
