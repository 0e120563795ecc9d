// The core at scale: the real reconciler, adaptive loop and status document over
// simulated hosts and a simulated scheduler (the unit tests' fakes), each host with
// room for 4 workers, through start-up, an adaptive wave up and down, a host lost and
// back, and `status`. Nothing here opens a socket or starts a process: what it times is
// the controller's own CPU per tick, which is what grows with the host count.
//
//   npx tsx bench/core.ts --hosts 1000        # last line: hosts=… workers=… tick_p50_ms=… …
//   npx tsx bench/core.ts --hosts 10000 --waves 1
//   CORE_TICKS=1 npx tsx bench/core.ts        # also each tick's and adaptive step's time, in order
//   CORE_TRACE=1 node --trace-gc --import tsx bench/core.ts   # each tick as it ends, among the GCs
//   CORE_HEAP_SNAPSHOT=FILE node --expose-gc …   # a heap snapshot at the first wave's top, after a
//                                               # full GC; bench/heap-split.mjs FILE: the controller's, the fakes'
//
// As the background controller runs it (bundled JavaScript, no tsx loader thread, its V8
// flags: CONTROLLER_V8_FLAGS in src/app/commands/detach.ts):
//   npx esbuild bench/core.ts --bundle --platform=node --format=esm --outfile=/tmp/core.mjs
//   node --no-opt --no-sparkplug --heap-growing-percent=50 /tmp/core.mjs --hosts 10000 --waves 1
//
// A tick is timed until the event loop is free again (what it set going, exits and
// events, is its cost too); a follow-up tick the reconciler asks for (over TICK_STARTS
// starts or TICK_RETIRES retirements) is timed as a tick of its own.
import { parseArgs } from 'node:util';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { writeHeapSnapshot } from 'node:v8';
import { AdaptiveLoop } from '../src/adaptive/adaptive-loop.js';
import { EventLog } from '../src/app/controller/event-log.js';
import { statusOf } from '../src/app/controller/status.js';
import type { ClusterSession } from '../src/app/controller/cluster-session.js';
import { statusText } from '../src/app/commands/status-text.js';
import { ClusterState } from '../src/cluster/cluster-state.js';
import type { DesiredProcess } from '../src/cluster/plan-actions.js';
import type { Clock, ProcessSpec } from '../src/cluster/ports.js';
import { Reconciler } from '../src/cluster/tick/reconciler.js';
import type { AdaptiveSpec, HostSpec } from '../src/config/spec.js';
import type { ClusterEvent } from '../src/events/types.js';
import { FakeHost, FakeScheduler, flush } from '../test/unit/cluster/fakes.js';
import { testSpec } from '../test/unit/config/spec-fixture.js';

const { values } = parseArgs({
  options: {
    hosts: { type: 'string', default: '1000' },
    'workers-per-host': { type: 'string', default: '4' },
    waves: { type: 'string', default: '2' },
    'status-rounds': { type: 'string', default: '5' },
  },
});
const HOSTS = whole('hosts');
const PER_HOST = whole('workers-per-host');
const WAVES = whole('waves');
const STATUS_ROUNDS = whole('status-rounds');

function whole(k: keyof typeof values): number {
  const n = Number(values[k]);
  if (!Number.isInteger(n) || n < 1) {
    process.stderr.write(`core: --${k} takes a whole number ≥ 1, got ${String(values[k])}\n`);
    process.exit(2);
  }
  return n;
}

/**
 * Time stands still unless the bench moves it; the bench ticks by hand. The one timer it
 * keeps is the reconciler's follow-up tick (after(0): a tick capped at TICK_STARTS or
 * TICK_RETIRES), which the bench runs, and times, as a tick of its own.
 */
class StepClock implements Clock {
  t = 1_000_000;
  readonly due: (() => void)[] = [];
  now = () => this.t;
  after(ms: number, fn: () => void): () => void {
    if (ms === 0) this.due.push(fn);
    return () => {};
  }
}

const clock = new StepClock();
const names = Array.from({ length: HOSTS }, (_, i) => `n${i + 1}`);
const spec = testSpec({ workers: names, nworkers: PER_HOST });
const state = new ClusterState(spec, HOSTS);
const scheduler = new FakeScheduler();
// The demand route of our scheduler preload: placement by resource, as a real cluster runs.
scheduler.pending = [];
const hosts = new Map<string, FakeHost>();
const events = new EventLog(clock.now);
const life = new AbortController();
let emitted = 0;
const emit = (e: ClusterEvent) => {
  emitted++;
  events.take(e);
};

async function connect(h: HostSpec): Promise<FakeHost> {
  const host = new FakeHost(h.name);
  const old = hosts.get(h.name);
  if (old) for (const [pid, p] of old.remote) host.remote.set(pid, p);
  hosts.set(h.name, host);
  return host;
}

// A literal, as processSpecs() in src/app builds it: a spread `{ ...d, argv, env }` gave each
// spec a V8 hidden class of its own (~200 bytes more a worker, the fakes' not the controller's).
const specFor = (d: DesiredProcess): ProcessSpec => ({
  name: d.name,
  host: d.host,
  role: d.role,
  argv: ['python3'],
  env: {},
});
const reconciler = new Reconciler({
  state,
  clock,
  emit,
  connect,
  specFor,
  scheduler: () => scheduler,
  signal: life.signal,
});

/**
 * The scheduler sees every worker process that runs (registration is instant here). Its
 * list changes in place: the simulated scheduler lives in another process in a real
 * cluster, so its own garbage (a new list and 40,000 metrics after every tick, at
 * 10,000 hosts) must not count as the controller's memory.
 */
const idle = { executing: 0, memory: 0 };
function register(): void {
  const running = new Set<string>();
  state.processes.forEach((t) => {
    if (t.desired.role === 'worker' && !t.exit && !t.stopping) running.add(t.desired.name);
  });
  scheduler.registered.forEach((name) => {
    if (running.has(name)) return;
    scheduler.registered.delete(name);
    scheduler.metrics.delete(name);
  });
  running.forEach((name) => {
    if (scheduler.registered.has(name)) return;
    scheduler.registered.add(name);
    scheduler.metrics.set(name, idle);
  });
}

const tickMs: number[] = [];
/** The same ticks in CPU time (this process's user + system): what a loaded machine's wall clock inflates. */
const tickCpuMs: number[] = [];
/** Until the event loop is free again: what a tick set going (exits, events) is its cost too. */
const settled = () => new Promise<void>((r) => setImmediate(r));
/** One tick timed until the event loop is free again (what it set going counts), wall and CPU. */
async function timedTick(label: string, run: () => Promise<void>): Promise<void> {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  await run();
  await settled();
  tickMs.push(performance.now() - t0);
  const c = process.cpuUsage(c0);
  tickCpuMs.push((c.user + c.system) / 1000);
  sampleRss();
  if (process.env.CORE_TRACE) process.stderr.write(`${label} ${tickMs.at(-1)!.toFixed(2)}\n`);
}

async function tick(): Promise<void> {
  await timedTick('TICK', () => reconciler.tick());
  await followUps();
  register();
  clock.t += 1000;
}

/** The follow-up ticks a capped tick asked for, each timed as a tick (they come at once, as in the controller). */
async function followUps(): Promise<void> {
  for (let fn = clock.due.shift(); fn; fn = clock.due.shift()) {
    const due = fn;
    await timedTick('TICK(follow-up)', () => (due(), reconciler.idle()));
  }
}

/** The peak RSS, sampled after every tick, adaptive step and `status` (a phase's peak was missed between checkpoints). */
let rssPeak = 0;
const sampleRss = () => (rssPeak = Math.max(rssPeak, process.memoryUsage.rss()));

const adaptiveSpec: AdaptiveSpec = {
  minimum: HOSTS,
  maximum: HOSTS * PER_HOST,
  intervalMs: 1000,
  waitCount: 3,
  targetDurationMs: 5000,
};
const adaptive = new AdaptiveLoop(
  {
    state,
    clock,
    emit,
    signal: life.signal,
    scheduler: () => scheduler,
    daskVersion: async () => '2022.12.1',
    scale: (n) => reconciler.scale(n),
    add: (adds) => reconciler.add(adds),
    retire: (ns) => reconciler.retire(ns),
  },
  adaptiveSpec,
);
const stepMs: number[] = [];
async function adaptiveStep(): Promise<void> {
  const t0 = performance.now();
  await adaptive.stepOnce(false);
  await settled();
  stepMs.push(performance.now() - t0);
  sampleRss();
  if (process.env.CORE_TRACE) process.stderr.write(`STEP ${stepMs.at(-1)!.toFixed(2)}\n`);
  await followUps();
  await tick();
}

const session = {
  state,
  spec,
  events,
  adaptive,
  address: 'tls://n0:8786',
  dashboard: 'http://127.0.0.1:8787/status',
  startedAt: clock.t,
  now: clock.now,
  o: {},
} as unknown as ClusterSession;
const statusMs: number[] = [];
function status(): void {
  const t0 = performance.now();
  const doc = statusOf(session, 'bench', process.pid);
  JSON.stringify(doc);
  statusText(doc);
  statusMs.push(performance.now() - t0);
  sampleRss();
}

/** A heap snapshot at the first wave's top, after a full GC when `--expose-gc` allows one. */
function snapshot(file: string): void {
  (globalThis as { gc?: () => void }).gc?.();
  say(`heap snapshot to ${writeHeapSnapshot(file)}`);
}

const running = () => scheduler.registered.size;
function say(what: string): void {
  const m = process.memoryUsage();
  const mb = (x: number) => Math.round(x / 2 ** 20);
  process.stderr.write(
    `core: ${what}: ${running()} workers registered, ${state.desiredWorkers.length} desired; rss ${mb(m.rss)} MB, heap ${mb(m.heapUsed)}/${mb(m.heapTotal)} MB\n`,
  );
}

// Start-up: every host connects, the first ticks start the scheduler and one worker a host.
const t0 = performance.now();
await Promise.all(state.hosts().map((h) => reconciler.links.connect(h.name)));
await tick();
await tick();
reconciler.startupDone();
say(`start-up in ${Math.round(performance.now() - t0)} ms`);
sampleRss();

// adaptive waves: the scheduler asks for every slot, then for the minimum again.
// Its interval timer never fires on this clock: the bench steps it by hand, after the
// first step start() takes.
adaptive.start();
await flush();
for (let w = 0; w < WAVES; w++) {
  scheduler.target = HOSTS * PER_HOST;
  scheduler.plainPending = HOSTS * PER_HOST;
  for (let i = 0; i < 3; i++) await adaptiveStep();
  say(`wave ${w + 1} up`);
  sampleRss();
  if (w === 0 && process.env.CORE_HEAP_SNAPSHOT) snapshot(process.env.CORE_HEAP_SNAPSHOT);
  scheduler.target = 0;
  scheduler.plainPending = 0;
  for (let i = 0; i < adaptiveSpec.waitCount + 3; i++) await adaptiveStep();
  say(`wave ${w + 1} down`);
  sampleRss();
}

// A host lost and back.
const lost = names[Math.floor(HOSTS / 2)]!;
hosts.get(lost)!.drop();
await tick();
clock.t += 60_000;
await tick();
await tick();
say(`${lost} lost and back (${state.health.state(lost)?.kind ?? 'unknown'})`);

for (let i = 0; i < STATUS_ROUNDS; i++) status();
sampleRss();

// Quiet ticks: nothing changed since the last (timed apart from the ticks above).
const quietMs: number[] = [];
for (let i = 0; i < 10; i++) {
  register();
  const t0 = performance.now();
  await reconciler.tick();
  quietMs.push(performance.now() - t0);
  clock.t += 1000;
}
life.abort();

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
};
const ms = (x: number) => x.toFixed(2);
if (process.env.CORE_TICKS)
  process.stderr.write(`ticks: ${tickMs.map(ms).join(' ')}\nsteps: ${stepMs.map(ms).join(' ')}\n`);
const { plans, skipped, capped } = reconciler.counts;
process.stderr.write(
  `core: ${tickMs.length} ticks timed; of all reconcile passes (the adaptive steps' too) ${plans} planned, ${skipped} found nothing changed, ${capped} capped; ${stepMs.length} adaptive steps (p50 ${ms(pct(stepMs, 50))} ms, p99 ${ms(pct(stepMs, 99))} ms), ${emitted} events\n`,
);
process.stderr.write(`core: a tick with nothing changed: p50 ${ms(pct(quietMs, 50))} ms\n`);
process.stderr.write(`core: the slowest tick of ${tickMs.length}: ${ms(Math.max(...tickMs))} ms\n`);
process.stderr.write(
  `core: tick CPU p50 ${ms(pct(tickCpuMs, 50))} ms, p99 ${ms(pct(tickCpuMs, 99))} ms; load ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}\n`,
);
console.log(
  `hosts=${HOSTS} workers=${HOSTS * PER_HOST} tick_p50_ms=${ms(pct(tickMs, 50))} tick_p99_ms=${ms(pct(tickMs, 99))} ` +
    `rss_mb=${Math.round(rssPeak / 2 ** 20)} status_ms=${ms(pct(statusMs, 50))}`,
);
