/**
 * Runs pending teardowns when the process ends abnormally (exit without teardown,
 * Ctrl-C, kill), so namespaces and sshd never outlive the test run.
 */
type Cleanup = () => unknown;
const pending = new Set<Cleanup>();
const SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

function runAll(): void {
  for (const fn of [...pending]) {
    try {
      fn();
    } catch {
      /* each cleanup reports its own errors */
    }
  }
}

function onSignal(sig: NodeJS.Signals): void {
  runAll();
  // Keep the default "die on signal" unless someone else (e.g. vitest) handles it.
  if (process.listenerCount(sig) === 0) process.kill(process.pid, sig);
}

const handlers = new Map(SIGNALS.map((s) => [s, () => onSignal(s)] as const));

function install(): void {
  process.on('exit', runAll);
  for (const [sig, h] of handlers) process.once(sig, h);
}

function uninstall(): void {
  process.off('exit', runAll);
  for (const [sig, h] of handlers) process.off(sig, h);
}

/** Registers fn (must be synchronous and idempotent); returns the unregister function. */
export function onExitCleanup(fn: Cleanup): () => void {
  if (pending.size === 0) install();
  pending.add(fn);
  return () => {
    if (pending.delete(fn) && pending.size === 0) uninstall();
  };
}
