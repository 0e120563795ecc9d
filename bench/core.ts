// The core at scale: the real reconciler, adaptive loop and status document over
// simulated hosts and a simulated scheduler (the unit tests' fakes), each host with
// room for 4 workers, through start-up, an adaptive wave up and down, a host lost and
// back, and `status`. Nothing here opens a socket or starts a process: what it times is
// the controller's own CPU per tick, which is what grows with the host count.
//
//   npx tsx bench/core.ts --hosts 1000        # last line: hosts=… workers=… tick_p50_ms=… …
//   npx tsx bench/core.ts --hosts 10000 --waves 1
//   CORE_TICKS=1 npx tsx bench/core.ts        # also each tick's and adaptive step's time, in order
import { parseArgs } from 'node:util';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { AdaptiveLoop } from '../src/adaptive/adaptive-loop.js';
import { EventLog } from '../src/app/controller/event-log.js';
import { statusOf } from '../src/app/controller/status.js';
import type { ClusterSession } from '../src/app/controller/cluster-session.js';
import { statusText } from '../src/app/commands/status-text.js';
import { ClusterState } from '../src/cluster/cluster-state.js';
import type { DesiredProcess } from '../src/cluster/plan-actions.js';
import type { Clock, ProcessSpec } from '../src/cluster/ports.js';
import { Reconciler } from '../src/cluster/reconciler.js';
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

/** Time stands still unless the bench moves it; timers are not needed: the bench ticks by hand. */
class StepClock implements Clock {
  t = 1_000_000;
  now = () => this.t;
  after(): () => void {
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

const specFor = (d: DesiredProcess): ProcessSpec => ({ ...d, argv: ['python3'], env: {} });
const reconciler = new Reconciler({
  state,
  clock,
  emit,
  connect,
  specFor,
  scheduler: () => scheduler,
  signal: life.signal,
});

/** The scheduler sees every worker process that runs (registration is instant here). */
function register(): void {
  scheduler.registered.clear();
  scheduler.metrics.clear();
  for (const t of state.processes.values()) {
    if (t.desired.role !== 'worker' || t.exit || t.stopping) continue;
    scheduler.registered.add(t.desired.name);
    scheduler.metrics.set(t.desired.name, { executing: 0, memory: 0 });
  }
}

const tickMs: number[] = [];
/** The same ticks in CPU time (this process's user + system): what a loaded machine's wall clock inflates. */
const tickCpuMs: number[] = [];
async function tick(): Promise<void> {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  await reconciler.tick();
  tickMs.push(performance.now() - t0);
  const c = process.cpuUsage(c0);
  tickCpuMs.push((c.user + c.system) / 1000);
  register();
  clock.t += 1000;
}

let rssPeak = 0;
const sampleRss = () => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss));

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
  stepMs.push(performance.now() - t0);
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
}

const running = () => scheduler.registered.size;
function say(what: string): void {
  process.stderr.write(`core: ${what}: ${running()} workers registered, ${state.desiredWorkers.length} desired\n`);
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
const { plans, skipped } = reconciler.counts;
process.stderr.write(
  `core: ${tickMs.length} ticks timed; of all reconcile passes (the adaptive steps' too) ${plans} planned, ${skipped} found nothing changed; ${stepMs.length} adaptive steps (p50 ${ms(pct(stepMs, 50))} ms, p99 ${ms(pct(stepMs, 99))} ms), ${emitted} events\n`,
);
process.stderr.write(`core: a tick with nothing changed: p50 ${ms(pct(quietMs, 50))} ms\n`);
process.stderr.write(
  `core: tick CPU p50 ${ms(pct(tickCpuMs, 50))} ms, p99 ${ms(pct(tickCpuMs, 99))} ms; load ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}\n`,
);
console.log(
  `hosts=${HOSTS} workers=${HOSTS * PER_HOST} tick_p50_ms=${ms(pct(tickMs, 50))} tick_p99_ms=${ms(pct(tickMs, 99))} ` +
    `rss_mb=${Math.round(rssPeak / 2 ** 20)} status_ms=${ms(pct(statusMs, 50))}`,
);
