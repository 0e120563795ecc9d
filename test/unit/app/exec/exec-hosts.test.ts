import { describe, expect, it } from 'vitest';
import { matchHosts } from '../../../../src/app/hosts/host-pattern.js';
import { clusterHosts } from '../../../../src/config/spec.js';
import { UsageError } from '../../../../src/errors.js';
import { connectLimiter } from '../../../../src/app/transport/fan-out.js';
import { exitStatus } from '../../../../src/app/exec/exec-host.js';

const hosts = ['node01', 'node02', 'node03', 'node10', 'gpu1', 'gpu2'].map((name) => ({ name }));
const names = (p: string) => matchHosts(hosts, p).map((h) => h.name);

describe('matchHosts (--hosts)', () => {
  it('takes globs, ranges and comma lists', () => {
    expect(names('node0*')).toEqual(['node01', 'node02', 'node03']);
    expect(names('node[01-02],gpu2')).toEqual(['node01', 'node02', 'gpu2']);
    expect(names('gpu?')).toEqual(['gpu1', 'gpu2']);
    expect(names('node[01,10]')).toEqual(['node01', 'node10']);
    expect(names('node1*, gpu1')).toEqual(['node10', 'gpu1']);
  });
  it('refuses a pattern that matches nothing, naming the hosts (exit 2)', () => {
    expect(() => names('web*')).toThrow(UsageError);
    expect(() => names('web*')).toThrow(/no host in the host file matches/);
    expect(() => names('node[3-1]')).toThrow(/reversed range/);
  });
});

describe('clusterHosts', () => {
  it('lists the scheduler host first and every host once', () => {
    const spec = { schedulerHost: { name: 'a' }, workerHosts: [{ name: 'a' }, { name: 'b' }] };
    expect(clusterHosts(spec).map((h) => h.name)).toEqual(['a', 'b']);
  });
});

describe('connectLimiter', () => {
  it('runs at most `fanout` tasks at once, each after a jitter delay below jitterMs', async () => {
    const delays: number[] = [];
    let running = 0;
    let peak = 0;
    const limit = connectLimiter({
      fanout: 3,
      jitterMs: 20,
      burst: 0,
      random: () => 0.99,
      sleep: async (ms) => void delays.push(ms),
    });
    await Promise.all(
      Array.from({ length: 10 }, () =>
        limit(async () => {
          running += 1;
          peak = Math.max(peak, running);
          await new Promise((r) => setImmediate(r)); // held past a turn of the event loop, in no real time
          running -= 1;
        }),
      ),
    );
    expect(peak).toBe(3);
    expect(delays).toEqual(Array(10).fill(19));
  });
  it('starts the first `burst` at once (8 unless given) and delays only the later ones', async () => {
    const delays: number[] = [];
    const limit = connectLimiter({
      fanout: 32,
      jitterMs: 20,
      random: () => 0.5,
      sleep: async (ms) => void delays.push(ms),
    });
    const order: number[] = [];
    await Promise.all(Array.from({ length: 11 }, (_, i) => limit(async () => void order.push(i))));
    expect(delays).toEqual([10, 10, 10]);
    expect(order.slice(0, 8)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(order).toHaveLength(11);
  });
  it('does not wait at all without jitter', async () => {
    const limit = connectLimiter({ fanout: 1, jitterMs: 0, sleep: () => Promise.reject(new Error('slept')) });
    expect(await limit(async () => 7)).toBe(7);
  });
});

describe('exitStatus', () => {
  it('maps codes, signals (128+n) and a lost channel (255)', () => {
    expect(exitStatus(0, null)).toEqual({ kind: 'exit', code: 0 });
    expect(exitStatus(null, 'TERM')).toEqual({ kind: 'signal', signal: 'SIGTERM', code: 143 });
    expect(exitStatus(null, 'SIGKILL')).toMatchObject({ code: 137 });
    expect(exitStatus(null, null)).toMatchObject({ kind: 'failed', code: 255 });
  });
});
