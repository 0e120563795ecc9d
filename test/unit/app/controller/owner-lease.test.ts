// The owner lease on an injected clock: a dropped owner's connection brings the cluster
// down after the grace, a release or an owner coming back does not.
import { describe, expect, it } from 'vitest';
import { OwnerLease, type LeaseHolder } from '../../../../src/app/controller/owner-lease.js';
import { FakeClock } from '../../cluster/fakes.js';

class FakeConn implements LeaseHolder {
  private fns: (() => void)[] = [];
  onClose(fn: () => void): void {
    this.fns.push(fn);
  }
  close(): void {
    this.fns.forEach((f) => f());
  }
}

function setup() {
  const clock = new FakeClock();
  const reasons: string[] = [];
  const lease = new OwnerLease(clock, (r) => reasons.push(r));
  return { clock, reasons, lease };
}

describe('owner lease', () => {
  it('runs down once, grace after the owner vanished', async () => {
    const { clock, reasons, lease } = setup();
    const conn = new FakeConn();
    expect(lease.hold(conn, 120_000)).toEqual({ held: 1 });
    await clock.advance(600_000);
    expect(reasons).toEqual([]); // held: no expiry however long
    conn.close();
    expect(lease.state()).toEqual({ held: 0, expiresAt: clock.now() + 120_000 });
    await clock.advance(119_999);
    expect(reasons).toEqual([]);
    await clock.advance(1);
    expect(reasons).toEqual(["the owner's connection closed 120s ago without releasing its lease"]);
    await clock.advance(600_000);
    expect(reasons).toHaveLength(1);
  });

  it('a release detaches: closing after it starts no grace', async () => {
    const { clock, reasons, lease } = setup();
    const conn = new FakeConn();
    lease.hold(conn, 1_000);
    expect(lease.release(conn)).toBe(true);
    conn.close();
    await clock.advance(10_000);
    expect(reasons).toEqual([]);
    expect(lease.state()).toEqual({ held: 0 });
  });

  it('an owner that comes back within the grace keeps the cluster up', async () => {
    const { clock, reasons, lease } = setup();
    const first = new FakeConn();
    lease.hold(first, 5_000);
    first.close();
    await clock.advance(4_000);
    const second = new FakeConn();
    lease.hold(second, 5_000);
    expect(lease.state()).toEqual({ held: 1 });
    await clock.advance(60_000);
    expect(reasons).toEqual([]);
    second.close();
    await clock.advance(5_000);
    expect(reasons).toHaveLength(1);
  });

  it('with two owners, the grace starts when the last one goes', async () => {
    const { clock, reasons, lease } = setup();
    const a = new FakeConn();
    const b = new FakeConn();
    lease.hold(a, 1_000);
    lease.hold(b, 1_000);
    a.close();
    await clock.advance(10_000);
    expect(reasons).toEqual([]);
    b.close();
    await clock.advance(1_000);
    expect(reasons).toHaveLength(1);
  });

  it('dispose (the cluster is going down anyway) cancels a pending expiry', async () => {
    const { clock, reasons, lease } = setup();
    const conn = new FakeConn();
    lease.hold(conn, 1_000);
    conn.close();
    lease.dispose();
    await clock.advance(5_000);
    expect(reasons).toEqual([]);
  });
});
