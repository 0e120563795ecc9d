import { describe, expect, it } from 'vitest';
import { DEFAULT_RECONNECT_POLICY, HostHealth } from '../../../../src/cluster/tick/host-health.js';

describe('HostHealth', () => {
  it('has the documented defaults', () => {
    expect(DEFAULT_RECONNECT_POLICY).toEqual({ baseMs: 1000, factor: 2, maxMs: 30_000, stableMs: 30_000 });
  });

  it('knows nothing of a host before it is marked', () => {
    const h = new HostHealth();
    expect(h.state('a')).toBeUndefined();
    expect(h.isUsable('a')).toBe(false);
    expect(h.hosts()).toEqual([]);
  });

  it('goes connecting → up', () => {
    const h = new HostHealth();
    h.markConnecting('a', 0);
    expect(h.state('a')).toEqual({ kind: 'connecting', since: 0 });
    expect(h.isUsable('a')).toBe(false);
    h.markUp('a', 250);
    expect(h.state('a')).toEqual({ kind: 'up', since: 250 });
    expect(h.isUsable('a')).toBe(true);
  });

  it('backs off 1, 2, 4, 8, 16, 30, 30 s over failed connects', () => {
    const h = new HostHealth();
    let now = 0;
    const delays: number[] = [];
    for (let i = 0; i < 7; i++) {
      h.markConnecting('a', now);
      now += 50; // the connect fails 50 ms later
      const retryAt = h.markDown('a', now, 'ECONNREFUSED');
      delays.push(retryAt - now);
      now = retryAt;
    }
    expect(delays).toEqual([1000, 2000, 4000, 8000, 16_000, 30_000, 30_000]);
    expect(h.state('a')).toEqual({
      kind: 'unreachable',
      since: now - 30_000,
      error: 'ECONNREFUSED',
      failures: 7,
      retryAt: now,
    });
  });

  it('offers a host for reconnect once its retry time has come, and not while connecting', () => {
    const h = new HostHealth();
    h.markConnecting('a', 0);
    expect(h.markDown('a', 100, 'timed out')).toBe(1100);
    expect(h.dueForReconnect(1099)).toEqual([]);
    expect(h.dueForReconnect(1100)).toEqual(['a']);
    expect(h.dueForReconnect(5000)).toEqual(['a']); // level: still due until acted on
    h.markConnecting('a', 5000);
    expect(h.dueForReconnect(10_000)).toEqual([]);
    expect(h.markDown('a', 5100, 'timed out')).toBe(7100);
  });

  it('lists due hosts earliest retry first', () => {
    const h = new HostHealth();
    h.markConnecting('a', 0);
    h.markConnecting('b', 0);
    h.markConnecting('c', 0);
    h.markDown('a', 0, 'x'); // 1000
    h.markDown('a', 1000, 'x'); // 3000
    h.markDown('b', 500, 'y'); // 1500
    h.markDown('c', 2500, 'z'); // 3500
    expect(h.dueForReconnect(3000)).toEqual(['b', 'a']);
    expect(h.dueForReconnect(4000)).toEqual(['b', 'a', 'c']);
  });

  it('does not reset the back-off when a host drops right after coming up (flapping)', () => {
    const h = new HostHealth();
    h.markConnecting('a', 0);
    expect(h.markDown('a', 0, 'refused')).toBe(1000);
    h.markConnecting('a', 1000);
    h.markUp('a', 1100);
    expect(h.state('a')).toEqual({ kind: 'up', since: 1100, lastError: 'refused' });
    expect(h.markDown('a', 1200, 'connection reset')).toBe(3200); // 2 s: second failure
  });

  it('starts the back-off again after the host was up for stableMs', () => {
    const h = new HostHealth();
    h.markConnecting('a', 0);
    h.markDown('a', 0, 'refused'); // 1 s
    h.markDown('a', 1000, 'refused'); // 2 s
    h.markConnecting('a', 3000);
    h.markUp('a', 3000);
    expect(h.markDown('a', 33_000, 'connection reset')).toBe(34_000);
    expect(h.state('a')).toMatchObject({ kind: 'unreachable', failures: 1 });
  });

  it('keeps the up-since time on a repeated markUp', () => {
    const h = new HostHealth();
    h.markUp('a', 10);
    h.markUp('a', 20);
    expect(h.state('a')).toEqual({ kind: 'up', since: 10 });
  });

  it('marks an up host degraded and clears it', () => {
    const h = new HostHealth();
    h.markUp('a', 0);
    h.markDegraded('a', 'a-1 crash-looping');
    expect(h.state('a')).toEqual({ kind: 'degraded', since: 0, reason: 'a-1 crash-looping' });
    expect(h.isUsable('a')).toBe(true);
    h.markDegraded('a', 'a-0 not running'); // the caller re-states it each tick
    expect(h.state('a')).toEqual({ kind: 'degraded', since: 0, reason: 'a-0 not running' });
    h.clearDegraded('a');
    expect(h.state('a')).toEqual({ kind: 'up', since: 0 });
  });

  it('ignores degraded for a host that is not up, and drops it when the host goes down', () => {
    const h = new HostHealth();
    h.markConnecting('a', 0);
    h.markDegraded('a', 'ignored');
    expect(h.state('a')).toEqual({ kind: 'connecting', since: 0 });
    h.markUp('a', 10);
    h.markDegraded('a', 'a-0 not running');
    h.markDown('a', 20, 'reset');
    expect(h.state('a')).toMatchObject({ kind: 'unreachable', error: 'reset' });
    h.markConnecting('a', 1020);
    h.markUp('a', 1030);
    expect(h.state('a')).toEqual({ kind: 'up', since: 1030, lastError: 'reset' });
  });

  it('gives plan() the unusable hosts', () => {
    const h = new HostHealth();
    h.markUp('a', 0);
    h.markUp('b', 0);
    h.markDegraded('b', 'b-0 crash-looping');
    h.markConnecting('c', 0);
    h.markDown('d', 0, 'no route to host');
    expect([...h.unusableHosts()]).toEqual(['c', 'd']);
    expect(h.hosts()).toEqual(['a', 'b', 'c', 'd']);
  });
});
