import { describe, expect, it } from 'vitest';
import { HandshakeDeadline, type DeadlineMiss, type DeadlineTimers } from '../../../src/ssh/handshake-deadline.js';

// A clock stepped by hand; `afterPendingIo` runs what the test lets in first (the I/O
// an event loop turn reads after its timers), then the check.
function steppedTimers() {
  let now = 0;
  let timers: { at: number; fn: () => void; id: number }[] = [];
  let nextId = 1;
  let pendingIo: (() => void)[] = [];
  const t: DeadlineTimers = {
    now: () => now,
    setTimeout: (fn, ms) => {
      const id = nextId++;
      timers.push({ at: now + ms, fn, id });
      return id;
    },
    clearTimeout: (id) => {
      timers = timers.filter((x) => x.id !== id);
    },
    afterPendingIo: (fn) => {
      const io = pendingIo;
      pendingIo = [];
      io.forEach((f) => f());
      fn();
    },
  };
  return {
    timers: t,
    /** Moves the clock to `to`, firing each timer due on the way at its time. */
    advanceTo(to: number): void {
      for (;;) {
        const due = timers.filter((x) => x.at <= to).sort((a, b) => a.at - b.at)[0];
        if (!due) break;
        timers = timers.filter((x) => x !== due);
        now = due.at;
        due.fn();
      }
      now = to;
    },
    /** Data that arrived while the loop was busy: read after the timers of this turn. */
    arrivesWithTimers(fn: () => void): void {
      pendingIo.push(fn);
    },
  };
}

function deadline(silenceMs = 10_000) {
  const clock = steppedTimers();
  const missed: { why: DeadlineMiss; at: number }[] = [];
  const d = new HandshakeDeadline(silenceMs, (why) => missed.push({ why, at: clock.timers.now() }), clock.timers);
  return { clock, d, missed };
}

describe('the SSH handshake deadline', () => {
  it('a host that says nothing fails at connect_timeout', () => {
    const { clock, missed } = deadline();
    clock.advanceTo(9_999);
    expect(missed).toEqual([]);
    clock.advanceTo(10_000);
    expect(missed).toEqual([{ why: 'silent', at: 10_000 }]);
  });

  it('a host that answers each step within connect_timeout goes on past it', () => {
    const { clock, d, missed } = deadline();
    for (let t = 8_000; t <= 48_000; t += 8_000) {
      clock.advanceTo(t);
      d.heardFrom();
    }
    clock.advanceTo(57_999);
    expect(missed).toEqual([]);
    d.stop();
    clock.advanceTo(200_000);
    expect(missed).toEqual([]);
  });

  it('one that answered, then went quiet for connect_timeout, stalled', () => {
    const { clock, d, missed } = deadline();
    clock.advanceTo(3_000);
    d.heardFrom();
    clock.advanceTo(12_999);
    expect(missed).toEqual([]);
    clock.advanceTo(13_000);
    expect(missed).toEqual([{ why: 'stalled', at: 13_000 }]);
  });

  it('answering steadily, at most 6 times connect_timeout in all', () => {
    const { clock, d, missed } = deadline();
    for (let t = 5_000; t < 60_000; t += 5_000) {
      clock.advanceTo(t);
      d.heardFrom();
    }
    clock.advanceTo(59_999);
    expect(missed).toEqual([]);
    clock.advanceTo(60_000);
    expect(missed).toEqual([{ why: 'total', at: 60_000 }]);
  });

  it('time the client holds (an agent, a passphrase) counts for neither bound', () => {
    const { clock, d, missed } = deadline();
    clock.advanceTo(9_000);
    d.hold();
    d.hold();
    clock.advanceTo(100_000);
    d.release();
    clock.advanceTo(200_000);
    expect(missed).toEqual([]);
    d.release();
    // silence counts again from the release; the total has 9 s of 60 s used
    clock.advanceTo(209_999);
    expect(missed).toEqual([]);
    clock.advanceTo(210_000);
    expect(missed).toEqual([{ why: 'silent', at: 210_000 }]);
  });

  it('the total excludes holds: 9 s before a hold, then answers every 5 s until 51 s after it', () => {
    const { clock, d, missed } = deadline();
    clock.advanceTo(9_000);
    d.hold();
    clock.advanceTo(50_000);
    d.release();
    for (let t = 55_000; t < 101_000; t += 5_000) {
      clock.advanceTo(t);
      d.heardFrom();
    }
    clock.advanceTo(100_999);
    expect(missed).toEqual([]);
    clock.advanceTo(101_000);
    expect(missed).toEqual([{ why: 'total', at: 101_000 }]);
  });

  it("an answer waiting unread when the timer comes due (a busy controller's loop) is not a timeout", () => {
    const { clock, d, missed } = deadline();
    clock.arrivesWithTimers(() => d.heardFrom());
    clock.advanceTo(10_000);
    expect(missed).toEqual([]);
    clock.advanceTo(19_999);
    expect(missed).toEqual([]);
    clock.advanceTo(20_000);
    expect(missed).toEqual([{ why: 'stalled', at: 20_000 }]);
  });

  it('stopped, it never fires', () => {
    const { clock, d, missed } = deadline();
    d.stop();
    d.release();
    clock.advanceTo(100_000);
    expect(missed).toEqual([]);
  });
});
