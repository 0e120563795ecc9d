// Fakes at the core's ports (HostRunner, RunningProcess, SchedulerPort, Clock), for
// tests that step the cluster by hand (cluster-harness.ts wires them together).
import type { PendingGroup } from '../../../src/cluster/placement/demand.js';
import type {
  ClearUpOptions,
  ClearUpResult,
  Clock,
  ExitInfo,
  HostRunner,
  ProcessSpec,
  RunningProcess,
  SchedulerPort,
  StopOptions,
  StopResult,
  TaggedProcess,
} from '../../../src/cluster/ports.js';

/** Lets every promise chain that can settle now settle. */
export async function flush(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
}

export class FakeClock implements Clock {
  private timers: { at: number; fn: () => void; id: number }[] = [];
  private ids = 0;
  constructor(public t = 1_000_000) {}
  now = () => this.t;
  after(ms: number, fn: () => void): () => void {
    const id = ++this.ids;
    this.timers.push({ at: this.t + Math.max(0, ms), fn, id });
    return () => (this.timers = this.timers.filter((x) => x.id !== id));
  }
  /** Moves time on, firing due timers in order and letting their work settle. */
  async advance(ms: number): Promise<void> {
    await flush(); // what happened before (an exit) schedules its wake-ups first
    const end = this.t + ms;
    for (;;) {
      const next = this.timers.filter((x) => x.at <= end).sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!next) break;
      this.timers = this.timers.filter((x) => x !== next);
      this.t = Math.max(this.t, next.at);
      next.fn();
      await flush();
    }
    this.t = end;
    await flush();
  }
}

export class FakeProcess implements RunningProcess {
  readonly pid: Promise<number>;
  readonly exited: Promise<ExitInfo>;
  private end!: (e: ExitInfo) => void;
  private lines: ((s: 'stdout' | 'stderr', l: string) => void)[] = [];
  ended = false;
  stops = 0;
  /** false: stop() gives up before the channel reports the exit (a late EOF). */
  exitOnStop = true;
  /** The spec it was started with: kept here for tests to read (ShellProcess keeps only the name). */
  readonly spec: ProcessSpec;
  readonly name: string;
  constructor(
    spec: ProcessSpec,
    readonly remotePid: number,
    private readonly host: FakeHost,
  ) {
    this.spec = spec;
    this.name = spec.name;
    this.pid = Promise.resolve(remotePid);
    this.exited = new Promise((r) => (this.end = r));
  }
  onLine(cb: (s: 'stdout' | 'stderr', l: string) => void): () => void {
    this.lines = this.lines.concat([cb]); // as ShellProcess does: an array of exactly the listeners
    return () => (this.lines = this.lines.filter((l) => l !== cb));
  }
  line(text: string): void {
    for (const l of this.lines) l('stdout', text);
  }
  /** The channel reports an exit (the remote process may live on: see `remoteAlive`). */
  exit(code: number | null = 1, signal: string | null = null): void {
    if (this.ended) return;
    this.ended = true;
    this.end({ code, signal });
  }
  /** The remote process dies and its channel says so. */
  die(code = 1): void {
    this.host.remote.delete(this.remotePid);
    this.exit(code);
  }
  /** What the last stop() was given: its grace, whether it was forced, whether it said the cluster ends. */
  lastStop?: { graceMs: number; forced: boolean; clusterEnds: boolean };
  async stop(
    graceMs = 0,
    force?: AbortSignal,
    how?: { clusterEnds?: boolean },
  ): Promise<{ forced: boolean; exit: ExitInfo; hostClean?: boolean }> {
    this.stops++;
    this.lastStop = { graceMs, forced: force?.aborted ?? false, clusterEnds: how?.clusterEnds ?? false };
    this.host.remote.delete(this.remotePid);
    if (!this.exitOnStop) return { forced: true, exit: { code: null, signal: 'SIGKILL' } };
    this.exit(null, 'SIGTERM');
    // As the launcher: the last of ours on the host says so at a teardown's stop.
    const hostClean = how?.clusterEnds === true && this.host.remote.size === 0;
    return { forced: false, exit: await this.exited, ...(hostClean ? { hostClean } : {}) };
  }
}

let nextPid = 1000;

export class FakeHost implements HostRunner {
  /** PIDs alive on the host carrying our tags (pgid = pid unless set). */
  readonly remote = new Map<number, TaggedProcess>();
  readonly started: FakeProcess[] = [];
  readonly stopped: number[] = [];
  closed = false;
  failListTagged = false;
  /** clearUp() calls, and how many processes of ours were alive when the files went. */
  readonly filesRemoved: number[] = [];
  /** clearUp() calls: whether each was told the host's last process had said it was clean. */
  readonly reportedClean: boolean[] = [];
  private onDrop?: (err?: Error) => void;
  constructor(readonly host: string) {}
  async start(spec: ProcessSpec): Promise<RunningProcess> {
    const pid = nextPid++;
    this.remote.set(pid, { pid, ppid: 1, pgid: pid });
    const p = new FakeProcess(spec, pid, this);
    this.started.push(p);
    return p;
  }
  async adopt(spec: ProcessSpec, pid: number): Promise<RunningProcess> {
    const p = new FakeProcess(spec, pid, this);
    this.started.push(p);
    return p;
  }
  async listTagged(): Promise<TaggedProcess[]> {
    if (this.failListTagged) throw new Error('listing failed');
    return [...this.remote.values()];
  }
  async stopTagged(pids: number[] | 'all', _o: StopOptions): Promise<StopResult> {
    const list = pids === 'all' ? [...this.remote.keys()] : pids;
    for (const p of list) this.remote.delete(p);
    this.stopped.push(...list);
    return { stopped: list, forced: [], left: [] };
  }
  async run() {
    return { code: 0, stdout: '2022.12.1\n', stderr: '' };
  }
  async clearUp(o: ClearUpOptions): Promise<ClearUpResult> {
    this.reportedClean.push(o.reportedClean ?? false);
    const r = await this.stopTagged('all', o);
    if (!r.left.length) this.filesRemoved.push(this.remote.size);
    return r;
  }
  async forwardOut(): Promise<never> {
    throw new Error('no forwarding in tests');
  }
  onClose(cb: (err?: Error) => void): void {
    this.onDrop = cb;
  }
  close(): void {
    this.closed = true;
  }
  /** The connection drops: every channel ends, the remote processes live on. */
  drop(message = 'connection reset'): void {
    for (const p of this.started) p.exit(null);
    this.onDrop?.(new Error(message));
  }
  /** Processes of ours that still run here, by name. */
  running(name?: string): FakeProcess[] {
    return this.started.filter((p) => !p.ended && (name === undefined || p.spec.name === name));
  }
}

export class FakeScheduler implements SchedulerPort {
  readonly registered = new Set<string>();
  readonly retireCalls: string[][] = [];
  /** Per retire call: whether the scheduler was asked to keep the workers until they stop. */
  readonly retireKeep: boolean[] = [];
  /** Set to hold retire_workers answers back: resolve() lets them through. */
  retireHold?: Promise<void>;
  down = false;
  target = 0;
  /** Pending restricted work the preload reports; undefined: no demand route. */
  pending?: PendingGroup[];
  /** Plain tasks waiting for any worker, as the preload reports them. */
  plainPending = 0;
  /** Per worker name: what identity.json says it is doing. */
  readonly metrics = new Map<string, { executing?: number; memory?: number }>();
  async health() {
    return !this.down;
  }
  async workers() {
    if (this.down) throw new Error('connection refused');
    return [...this.registered].map((name) => ({ name, address: `tcp://${name}:1` }));
  }
  /**
   * Per worker name: results only it holds that no other worker can take; its retire is
   * refused (Dask leaves it out of its answer) and it keeps running.
   */
  readonly unmovable = new Map<string, number>();
  async retireWorkers(addresses: readonly string[], opts: { keep?: boolean } = {}) {
    this.retireCalls.push([...addresses]);
    this.retireKeep.push(opts.keep === true);
    await this.retireHold;
    const held = (a: string) => this.unmovable.get(/^tcp:\/\/(.*):1$/.exec(a)?.[1] ?? '');
    return {
      retired: addresses.filter((a) => held(a) === undefined),
      kept: addresses.flatMap((a) => (held(a) === undefined ? [] : [{ address: a, results: held(a)! }])),
    };
  }
  async adaptiveTarget() {
    return this.target;
  }
  async demand() {
    return this.pending ? { groups: this.pending, plainPending: this.plainPending } : undefined;
  }
  /** Each worker's memory limit as the scheduler reports it (bytes; 0: none). */
  memoryLimit = 0;
  async identityOrWorkers() {
    return {
      workers: [...this.registered].map((name) => ({
        name,
        address: `tcp://${name}:1`,
        nthreads: 2,
        memoryLimit: this.memoryLimit,
        metrics: this.metrics.get(name),
      })),
    };
  }
}
