// The control endpoint of a running `up` (the controller process), what other commands
// talk to: the control socket (status, scale, adapt, restart, down, subscribe), the
// state file `down` falls back on, and the per-process log files `logs` reads.
import fs from 'node:fs/promises';
import {
  clusterPaths,
  ensureClusterDir,
  removeClusterDirIfEmpty,
  socketPathFor,
  stateRoot,
  type ClusterPaths,
} from '../../control/paths.js';
import { LogStore } from '../../control/log-store.js';
import { endRun, startRun } from '../../control/log-runs.js';
import { startControlServer, type ControlServer } from '../../control/server.js';
import { removeCerts } from '../../tls/cert-store.js';
import { adaptiveToJson, writeState, type ClusterRecord } from '../../control/state-file.js';
import { adapt } from './adapt-session.js';
import { controlApi } from './control-api.js';
import type { ClusterSession } from './cluster-session.js';
import type { AppContext } from '../context.js';
import { RecentLines } from './recent-lines.js';
import { statusWithMetrics } from './status-metrics.js';
import type { TeardownResult } from '../../cluster/start-stop/teardown.js';
import { placeable } from '../../cluster/placement/scaling.js';
import { CONTROL_PROTOCOL, VERSION } from '../../version.js';
import { OwnerLease } from './owner-lease.js';

export interface ControlEndpointOptions {
  session: ClusterSession;
  clusterId: string;
  pid: number;
  /** Starts the same graceful stop as Ctrl-C and resolves with its result. */
  requestStop(reason: string): Promise<TeardownResult>;
  /** The run whose logs this controller writes (a re-adopting controller goes on in the dead one's). */
  runId: string;
  /** Seconds its processes outlive it (0: a foreground `up`'s stop with it): said to `status` once it is gone. */
  orphanGraceS?: number;
}

export function pathsFor(ctx: AppContext, name: string): ClusterPaths {
  return clusterPaths(stateRoot(ctx.env, ctx.homedir), name);
}

export class ControlEndpoint {
  private server?: ControlServer;
  private logs?: LogStore;
  private readonly recent = new RecentLines();
  private stateTimer?: NodeJS.Timeout;
  readonly socket: string;
  private readonly lease: OwnerLease;

  constructor(
    readonly paths: ClusterPaths,
    private readonly o: ControlEndpointOptions,
  ) {
    this.socket = socketPathFor(paths);
    this.lease = new OwnerLease(o.session.clock, (reason) => {
      o.session.bus.emit({
        kind: 'notice',
        level: 'warning',
        message: `owner lease expired: ${reason}; taking the cluster down`,
      });
      void o.requestStop('owner lease expired');
    });
  }

  async start(): Promise<void> {
    const { session } = this.o;
    await this.ensureDir();
    this.server = await startControlServer(this.socket, controlApi, {
      hello: async () => ({ protocol: CONTROL_PROTOCOL, version: VERSION }),
      placeable: async ({ n }) => placeable(session.state, n),
      lease: async ({ graceMs }, conn) => ({ ...this.lease.hold(conn, graceMs), graceMs }),
      release: async (_params, conn) => ({ released: this.lease.release(conn) }),
      status: async () => statusWithMetrics(session, this.o.clusterId, this.o.pid),
      // A change is in the state file before its reply: a controller killed right after
      // must not come back with the old size or adaptive settings.
      scale: async ({ n, force }) => this.saved(await session.userScale(n, { force: force === true })),
      adapt: async (params) => this.saved(await adapt(session, params)),
      restart: async ({ name }) => {
        await session.restartWorker(name);
        return { restarted: name };
      },
      down: async () => this.o.requestStop('sshcluster down'),
      apply: async ({ spec, ...roll }) => this.saved(await session.changes.apply(spec, roll)),
      drain: async ({ hosts, undrain, force }) =>
        this.saved(await session.changes.drain(hosts, undrain, force === true)),
      roll: async ({ workers, ...roll }) =>
        session.changes.restart(workers ?? session.state.desiredWorkers.map((w) => w.name), roll),
      // The recent lines and the status (statusWithMetrics takes it before its first
      // await) are taken where the subscription starts; the scheduler's figures (CPU,
      // memory, tasks) are added after, as for status. Events sent meanwhile wait for the
      // reply in the client.
      subscribe: async (_params, conn) => {
        conn.subscribe();
        const recentLines = this.recent.list();
        const status = statusWithMetrics(session, this.o.clusterId, this.o.pid);
        return { status: await status, recentLines };
      },
    });
    session.changes.listeners.add(() => this.saveSoon());
    session.bus.on((e) => {
      this.server?.broadcast(e);
      if (e.kind === 'process-started' || e.kind === 'process-exit' || e.kind === 'cluster-up') this.saveSoon();
    });
    await this.save();
  }

  /**
   * From before the first process starts, so its start-up lines are kept too: in the
   * log files, and the newest in memory for `attach` (pushed before the same event is
   * broadcast, by a listener registered before start()'s).
   */
  async recordLogs(): Promise<void> {
    this.o.session.bus.on((e) => {
      if (e.kind === 'process-line') this.recent.push(e);
    });
    try {
      await this.ensureDir();
      this.logs = new LogStore(await startRun(this.paths.logsDir, this.o.runId));
    } catch (err) {
      this.o.session.bus.emit({
        kind: 'notice',
        level: 'warning',
        message: `logs will not be recorded: ${String(err)}`,
      });
      return;
    }
    this.o.session.bus.on((e) => {
      if (e.kind === 'process-line') this.logs?.append(e.name, e.line);
    });
  }

  /** Held leases and a pending expiry, for status and tests. */
  leaseState(): import('./owner-lease.js').LeaseState {
    return this.lease.state();
  }

  state(): ClusterRecord {
    const s = this.o.session;
    return {
      version: 1,
      name: s.spec.name,
      clusterId: this.o.clusterId,
      source: s.spec.source,
      spec: s.spec,
      controller: {
        pid: this.o.pid,
        socket: this.socket,
        startedAt: new Date(s.controllerStartedAt).toISOString(),
        orphanGraceS: this.o.orphanGraceS,
      },
      schedulerAddress: s.address,
      dashboardUrl: s.dashboard,
      processes: s.state.alive().map((t) => ({
        name: t.desired.name,
        host: t.desired.host,
        role: t.desired.role,
        ...(t.pid ? { pid: t.pid } : {}),
      })),
      desiredWorkers: s.state.desiredWorkers.length,
      runId: this.o.runId,
      adaptive: adaptiveOf(s),
      ...(s.state.drained.size ? { drained: [...s.state.drained] } : {}),
      ...(s.state.pendingRoll.size ? { pendingRoll: [...s.state.pendingRoll] } : {}),
      ...(s.state.formerHosts.length ? { formerHosts: s.state.formerHosts } : {}),
      ...(s.state.drainShort ? { drainShort: s.state.drainShort } : {}),
      startedAt: new Date(s.startedAt).toISOString(),
      ...(s.state.unreached.size ? { unreached: [...s.state.unreached] } : {}),
      updatedAt: new Date().toISOString(),
    };
  }

  /** A change's reply, once the state file has what it changed. */
  private async saved<T>(reply: T): Promise<T> {
    await this.save();
    return reply;
  }

  private saveSoon(): void {
    if (this.closing) return;
    this.stateTimer ??= setTimeout(() => {
      this.stateTimer = undefined;
      void this.save();
    }, 200);
  }

  private dirReady = false;
  private async ensureDir(): Promise<void> {
    if (!this.dirReady) await ensureClusterDir(this.paths);
    this.dirReady = true;
  }

  private saving: Promise<void> = Promise.resolve();
  /** Set by close(): no save starts after it (one would bring back a removed state file). */
  private closing = false;

  /** Saves are chained so an older state is never renamed in after a newer one. */
  save(): Promise<void> {
    return this.closing ? this.saving : this.chainSave();
  }

  private chainSave(): Promise<void> {
    this.saving = this.saving.then(async () => {
      try {
        await this.ensureDir();
        await writeState(this.paths.stateFile, this.state());
      } catch (err) {
        this.o.session.bus.emit({
          kind: 'notice',
          level: 'warning',
          message: `could not write the state file: ${String(err)}`,
        });
      }
    });
    return this.saving;
  }

  /** After a clean teardown the state goes; after an unclean one it stays for `down`. */
  async close(clean: boolean): Promise<void> {
    this.closing = true;
    this.lease.dispose();
    if (this.stateTimer) clearTimeout(this.stateTimer);
    // A `down` request resolves with the same teardown: let its reply be queued first.
    await new Promise((r) => setImmediate(r));
    await this.server?.close();
    await this.logs?.close();
    if (!clean) return this.chainSave();
    // A save under way (the teardown's last events) would rename its file in after the
    // removal: the next `up` would then adopt this cluster's spec from it.
    await this.saving;
    // The certificates go with the state: a cluster that is gone needs neither.
    await Promise.all([fs.rm(this.paths.stateFile, { force: true }), removeCerts(this.paths.dir)]);
    await this.dropIfNothingRecorded();
  }

  /**
   * An `up` that failed before any process printed a line leaves nothing: no empty run
   * (`logs` would read it as the latest, "recorded: none") and, when nothing else of
   * the cluster is there, no dir (the name stays unknown: exit 2 for `--name`). A run
   * with lines, the failure's, stays for `logs --name`, and the runs before it beyond
   * the last KEEP_RUNS go only then (endRun). Best effort: what is left is only what a
   * failed `up` left before.
   */
  private async dropIfNothingRecorded(): Promise<void> {
    try {
      await endRun(this.paths.logsDir, this.o.runId);
      await removeClusterDirIfEmpty(this.paths);
    } catch {
      // left as it is
    }
  }
}

/** What a restarted controller should carry on with: the loop's settings, or none when it is off. */
function adaptiveOf(s: ClusterSession): ClusterRecord['adaptive'] {
  const spec = s.adaptive ? (s.adaptive.enabled ? s.adaptive.spec : undefined) : s.spec.adaptive;
  return spec ? adaptiveToJson(spec) : null;
}
