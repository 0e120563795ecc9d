// The outside observer (bench/py/observer.py): one client per run, started and ready
// (distributed imported) before the contender, told to go just before the contender is
// spawned, so each contender's start-up is timed the same way: until the scheduler itself
// lists N workers to a client that is none of theirs.
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { closedWithin, killAndWait, start, tail } from './proc.js';
import { PY, ROOT } from './hosts.js';

export interface Observer {
  /** Call right before spawning the contender. */
  go(): void;
  /** performance.now() when the observer said it saw N workers, or why not. */
  seen(timeoutMs: number): Promise<number | string>;
  stop(): Promise<void>;
}

export async function observer(host: string, port: number, workers: number): Promise<Observer> {
  const p = start(
    PY,
    ['-W', 'ignore', path.join(ROOT, 'bench/py/observer.py'), host, String(port), String(workers)],
    process.env,
    'pipe',
  );
  // Stamped as the line arrives: seen() may be asked later (after the contender's own "up").
  let seenAt: number | undefined;
  let text = '';
  p.child.stdout!.on('data', (d: Buffer) => {
    text += d.toString('utf8');
    if (seenAt === undefined && /SEEN \d+/.test(text)) seenAt = performance.now();
  });
  const ready = await p.waitFor(/READY/, 60_000);
  if (typeof ready !== 'object') throw new Error(`observer not ready (${ready}):\n${tail(p.out())}`);
  return {
    go: () => void p.child.stdin!.write('go\n'),
    async seen(timeoutMs) {
      const s = await p.waitFor(/SEEN (\d+)/, timeoutMs);
      return typeof s === 'object' ? (seenAt ?? s.at) : `observer: ${s}\n${tail(p.out())}`;
    },
    async stop() {
      await closedWithin(p, 10_000);
      await killAndWait(p);
    },
  };
}
