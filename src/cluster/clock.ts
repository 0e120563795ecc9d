// Waiting on the injected clock: a one-off delay and a repeating tick that ends with
// its signal. Tests drive both by advancing a fake clock.
import type { Clock } from './ports.js';

/** Resolves after `ms`, or at once when `signal` is (or gets) aborted. */
export function delay(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      cancel();
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const cancel = clock.after(ms, done);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * `p`, or undefined once `ms` have passed or `signal` is aborted, whichever comes first.
 * Unlike racing `delay`, the timer and the abort listener go as soon as `p` settles: a
 * scale-down of thousands of workers would otherwise hold one of each per worker for the
 * whole timeout, and every new listener on one signal costs more than the last.
 */
const SETTLED = Symbol('settled');

export async function within<T>(
  clock: Clock,
  ms: number,
  signal: AbortSignal | undefined,
  p: Promise<T>,
): Promise<T | undefined> {
  const gone = new AbortController();
  const timeout = delay(clock, ms, signal ? AbortSignal.any([signal, gone.signal]) : gone.signal).then(() => undefined);
  try {
    return await Promise.race([p, timeout]);
  } finally {
    gone.abort(SETTLED); // a reason of our own: without one, abort() builds a DOMException each time
  }
}

/** Calls fn every `ms` (the first time after `ms`) until `signal` is aborted. */
export function every(clock: Clock, ms: number, signal: AbortSignal, fn: () => void): void {
  let cancel = () => {};
  const arm = () => {
    if (signal.aborted) return;
    cancel = clock.after(ms, () => {
      if (signal.aborted) return;
      fn();
      arm();
    });
  };
  signal.addEventListener('abort', () => cancel(), { once: true });
  arm();
}
