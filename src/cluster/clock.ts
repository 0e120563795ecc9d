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
 * Unlike racing `delay`, the timer and the abort wait go as soon as `p` settles: a
 * scale-down of thousands of workers would otherwise hold one of each per worker for the
 * whole timeout. All the waits on one signal share one listener (onAbort): every new
 * listener on a signal costs more than the last, and `AbortSignal.any` per wait made a
 * signal and weak references per retirement (a third of a 1,000-host wave's tick).
 */
export function within<T>(
  clock: Clock,
  ms: number,
  signal: AbortSignal | undefined,
  p: Promise<T>,
): Promise<T | undefined> {
  return new Promise<T | undefined>((resolve, reject) => {
    let settled = false;
    const end = (): boolean => {
      if (settled) return false;
      settled = true;
      cancel();
      unlisten();
      return true;
    };
    const giveUp = () => end() && resolve(undefined);
    const cancel = clock.after(ms, giveUp);
    const unlisten = signal ? onAbort(signal, giveUp) : () => {};
    p.then(
      (v) => end() && resolve(v),
      (err: unknown) => end() && reject(err),
    );
  });
}

/** The waiters on each signal: one 'abort' listener per signal, however many wait. */
const waiters = new WeakMap<AbortSignal, { fns: Set<() => void>; listener: () => void }>();

/** Calls `fn` once `signal` is aborted (in a microtask if it already is); returns the unsubscribe. */
function onAbort(signal: AbortSignal, fn: () => void): () => void {
  if (signal.aborted) {
    queueMicrotask(fn);
    return () => {};
  }
  let w = waiters.get(signal);
  if (!w) {
    const fns = new Set<() => void>();
    const listener = () => {
      waiters.delete(signal);
      for (const f of fns) f();
    };
    w = { fns, listener };
    waiters.set(signal, w);
    signal.addEventListener('abort', listener, { once: true });
  }
  const mine = w;
  mine.fns.add(fn);
  return () => {
    mine.fns.delete(fn);
    if (mine.fns.size || waiters.get(signal) !== mine) return;
    waiters.delete(signal);
    signal.removeEventListener('abort', mine.listener);
  };
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
