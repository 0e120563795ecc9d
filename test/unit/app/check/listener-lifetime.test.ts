// The scheduler host's listener in `check` must outlive the last worker's reach test:
// with 256 hosts the handshakes come in waves of `fanout`, and a fixed 60 s (the probe's
// 30 s + 30) ended it first on a busy machine, so later workers were refused.
import { describe, expect, it } from 'vitest';
import { listenerLifetimeS } from '../../../../src/app/check/check-probe.js';

describe('listenerLifetimeS', () => {
  it("is the probe time limit plus a handshake's longest (6 connect time limits) per wave of handshakes, plus 30 s", () => {
    expect(listenerLifetimeS({ hosts: 4, fanout: 32, timeoutMs: 30_000, connectTimeoutMs: 10_000 })).toBe(120);
    expect(listenerLifetimeS({ hosts: 256, fanout: 32, timeoutMs: 30_000, connectTimeoutMs: 10_000 })).toBe(540);
  });

  it('grows with the host file: 1,000 hosts at fanout 32 is 32 waves', () => {
    expect(listenerLifetimeS({ hosts: 1000, fanout: 32, timeoutMs: 30_000, connectTimeoutMs: 10_000 })).toBe(1980);
  });
});
