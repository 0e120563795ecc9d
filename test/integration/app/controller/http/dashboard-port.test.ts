// A re-adopting controller forwards the dashboard on the port the dead one recorded
// when it is free (a browser tab on it goes on working), else on the next wanted port,
// else on any free one (issue 34, item 13).
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { recordedDashboardPort } from '../../../../../src/config/addresses.js';
import { startDashboardForward, type Forward } from '../../../../../src/app/controller/http/dashboard-forward.js';

const opened: (Forward | net.Server)[] = [];
afterEach(() => opened.splice(0).forEach((o) => o.close()));

/** A port that was free a moment ago (its listener closed), and one held by a listener. */
async function port(hold: boolean): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const p = (s.address() as AddressInfo).port;
  if (hold) opened.push(s);
  else await new Promise((r) => s.close(r));
  return p;
}

const connect = () => Promise.reject(new Error('no scheduler in this test'));

describe('the dashboard forward port', () => {
  it('takes the first wanted port that is free', async () => {
    const [recorded, schedulers] = [await port(false), await port(false)];
    const fwd = await startDashboardForward(connect, [recorded, schedulers]);
    opened.push(fwd);
    expect(fwd.port).toBe(recorded);
  });

  it('goes on to the next when one is taken, and to any free port when all are', async () => {
    const [taken, free] = [await port(true), await port(false)];
    const next = await startDashboardForward(connect, [taken, free]);
    opened.push(next);
    expect(next.port).toBe(free);
    const any = await startDashboardForward(connect, [taken, free]);
    opened.push(any);
    expect([taken, free, 0]).not.toContain(any.port);
  });

  it('reads the recorded port from the URL a controller recorded on 127.0.0.1 only', () => {
    expect(recordedDashboardPort('http://127.0.0.1:40123/status')).toBe(40123);
    expect(recordedDashboardPort('http://n0:8787/status')).toBeUndefined();
    expect(recordedDashboardPort('')).toBeUndefined();
    expect(recordedDashboardPort(undefined)).toBeUndefined();
  });
});
