// The dashboard under load: 16 fake processes print 5,000 lines/s in total into the
// store, the real App renders through Ink (its production throttle, not debug mode) to
// a fake 160x48 TTY, and a key ('?', help on / off) is pressed every 500 ms. Measures
// key → the frame that shows its effect, frames written, and RSS over the run.
//   npx tsx bench/tui.ts [--seconds 30] [--rate 5000] [--sources 16]
// With --attach-idle (root, namespace hosts, tmux; lib/attach-idle.ts): the CPU of a real
// `sshcluster attach` on an idle cluster at --cols x --rows (80x24) over --seconds (20).
import { EventEmitter } from 'node:events';
import { parseArgs } from 'node:util';
import { render } from 'ink';
import { createElement } from 'react';
import type { DashboardActions } from '../src/ui/actions.js';
import { App } from '../src/ui/App.js';
import type { StatusJson } from '../src/control/status-document.js';
import { DashboardStore } from '../src/ui/store.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string' },
    rate: { type: 'string', default: '5000' },
    sources: { type: 'string', default: '16' },
    'attach-idle': { type: 'boolean', default: false },
    cols: { type: 'string', default: '80' },
    rows: { type: 'string', default: '24' },
    settle: { type: 'string', default: '3' },
  },
});
if (values['attach-idle']) {
  const { attachIdle } = await import('./lib/attach-idle.js');
  process.exit(
    await attachIdle({
      seconds: Number(values.seconds ?? 20),
      cols: Number(values.cols),
      rows: Number(values.rows),
      settle: Number(values.settle),
    }),
  );
}
const SECONDS = Number(values.seconds ?? 30);
const RATE = Number(values.rate);
const SOURCES = Number(values.sources);

class FakeTty extends EventEmitter {
  isTTY = true;
  columns = 160;
  rows = 48;
  frames = 0;
  bytes = 0;
  onWrite?: (s: string) => void;
  write = (s: string) => {
    this.frames++;
    this.bytes += s.length;
    this.onWrite?.(s);
    return true;
  };
}

class FakeStdin extends EventEmitter {
  isTTY = true;
  private data: string | null = null;
  press(s: string) {
    this.data = s;
    this.emit('readable');
  }
  read = () => {
    const d = this.data;
    this.data = null;
    return d;
  };
  setEncoding() {}
  setRawMode() {}
  resume() {}
  pause() {}
  ref() {}
  unref() {}
}

const hosts = Array.from({ length: SOURCES }, (_, i) => `node${String(i).padStart(2, '0')}`);
const status: StatusJson = {
  name: 'bench',
  clusterId: 'bench',
  uptimeS: 0,
  controllerPid: process.pid,
  schedulerAddress: 'tcp://10.0.0.1:8786',
  dashboardUrl: 'http://10.0.0.1:8787/status',
  startedAt: new Date().toISOString(),
  desiredWorkers: SOURCES,
  hosts: hosts.map((name) => ({ name, roles: ['worker' as const], state: 'up' as const, lastError: null, workers: 1 })),
  workers: hosts.map((h) => ({
    name: `${h}-0`,
    host: h,
    pid: 1,
    state: 'running' as const,
    restarts: 0,
    address: `tcp://${h}:1`,
    nthreads: 2,
    cpu: 50,
    memoryBytes: 2 ** 28,
    memoryLimitBytes: 2 ** 32,
    executing: 2,
  })),
  adaptive: null,
};
const actions: DashboardActions = {
  mode: 'attached',
  status: async () => status,
  scale: async (n) => ({ desired: n }),
  setAdaptive: async () => {},
  restartWorker: async () => {},
  teardown: async () => {},
  detach: () => {},
  interrupt: () => {},
};

const store = new DashboardStore('bench');
store.setStatus(status);
store.apply({
  kind: 'cluster-up',
  name: 'bench',
  schedulerAddress: status.schedulerAddress,
  dashboardUrl: status.dashboardUrl,
  workers: [],
  failedHosts: [],
});
const stdout = new FakeTty();
const stdin = new FakeStdin();
const ink = render(createElement(App, { store, actions, pollMs: 1_000, color: true }), {
  stdout: stdout as unknown as NodeJS.WriteStream,
  stdin: stdin as unknown as NodeJS.ReadStream,
  exitOnCtrlC: false,
  patchConsole: false,
  maxFps: 20,
});

// Lines arrive in 10 ms batches, round-robin over the sources, some WARNING / ERROR.
let emitted = 0;
const TICK_MS = 10;
const start = performance.now();
const producer = setInterval(() => {
  const due = Math.floor(((performance.now() - start) / 1000) * RATE) - emitted;
  for (let i = 0; i < due; i++, emitted++) {
    const h = hosts[emitted % SOURCES]!;
    const level = emitted % 97 === 0 ? 'ERROR' : emitted % 31 === 0 ? 'WARNING' : 'INFO';
    store.apply({
      kind: 'process-line',
      host: h,
      name: `${h}-0`,
      stream: 'stderr',
      line: `2026-01-01 00:00:00,000 - distributed.worker - ${level} - line ${emitted} ${'x'.repeat(emitted % 80)}`,
    });
  }
}, TICK_MS);

const MARK = 'this help (esc closes)';
const latencies: number[] = [];
const rss: number[] = [];
let helpOpen = false;
function pressAndTime(): Promise<void> {
  return new Promise((resolve) => {
    const want = !helpOpen;
    const t0 = performance.now();
    const timeout = setTimeout(() => ((stdout.onWrite = undefined), latencies.push(Infinity), resolve()), 5_000);
    stdout.onWrite = (s) => {
      // A whole frame: the help (which takes the screen) or the header back.
      if (s.includes(MARK) !== want || (!want && !s.includes('sshcluster'))) return;
      clearTimeout(timeout);
      stdout.onWrite = undefined;
      latencies.push(performance.now() - t0);
      helpOpen = want;
      resolve();
    };
    stdin.press('?');
  });
}

// With --expose-gc (see bench/README.md) the heap is also sampled after a full GC: that
// separates growth from garbage the collector has not got to yet.
const gc = (globalThis as { gc?: () => void }).gc;
const heap: number[] = [];
const sampler = setInterval(() => {
  rss.push(process.memoryUsage().rss);
  if (gc) {
    gc();
    heap.push(process.memoryUsage().heapUsed);
  }
}, 1_000);
const framesAt2s = await new Promise<number>((r) => setTimeout(() => r(stdout.frames), 2_000));
const deadline = performance.now() + SECONDS * 1000;
while (performance.now() < deadline) {
  await pressAndTime();
  await new Promise((r) => setTimeout(r, 500));
}
clearInterval(producer);
clearInterval(sampler);
const elapsed = (performance.now() - start) / 1000;
ink.unmount();
if (process.env.BENCH_SERIES) console.error(heap.map((h) => (h / 2 ** 20).toFixed(1)).join(' '));

const sorted = [...latencies].sort((a, b) => a - b);
const pct = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const mb = (b: number) => `${(b / 2 ** 20).toFixed(0)} MB`;
const warm = rss.slice(5);
console.log(
  JSON.stringify(
    {
      seconds: Number(elapsed.toFixed(1)),
      linesPerSecond: Math.round(emitted / elapsed),
      sources: SOURCES,
      keys: latencies.length,
      keyToFrameMs: {
        p50: Number(pct(50).toFixed(1)),
        p99: Number(pct(99).toFixed(1)),
        max: Number(sorted.at(-1)!.toFixed(1)),
      },
      framesPerSecond: Number(((stdout.frames - framesAt2s) / (elapsed - 2)).toFixed(1)),
      rss: {
        after5s: mb(warm[0] ?? 0),
        end: mb(rss.at(-1) ?? 0),
        max: mb(Math.max(...rss)),
        min: mb(Math.min(...warm)),
      },
      ...(heap.length
        ? { heapAfterGc: { after5s: mb(heap[5] ?? 0), end: mb(heap.at(-1) ?? 0), max: mb(Math.max(...heap.slice(5))) } }
        : {}),
      logLinesKept: store.model.logs.size,
    },
    null,
    2,
  ),
);
process.exit(0);
