import { Command, Option } from 'commander';
import type { AppContext } from '../app/context.js';
import { UsageError } from '../errors.js';
import type { ClusterEvent } from '../events/types.js';
import type { ClusterSpec } from '../config/spec.js';
import { clusterName, listenAddress, positiveInt, timeLimit, wholeNumber } from './options.js';

interface UpFlags {
  fanout: number;
  requireAll: boolean;
  json: boolean;
  python?: string;
  nworkers?: number;
  nthreads?: number;
  name?: string;
  readyTimeout: number;
  detach: boolean;
  controllerChild: boolean;
  adapt: boolean;
  min?: number;
  max?: number;
  tui: boolean;
  security?: 'tls' | 'none';
  metrics?: { host: string; port: number };
}

export function upCommand(ctx: AppContext, done: (code: number) => void): Command {
  return new Command('up')
    .description(
      'start a Dask scheduler and workers on the hosts of HOSTS.yaml (without it: a local cluster) and stay attached',
    )
    .argument('[hosts]', 'host file (YAML); omit it for a local cluster on this machine, without SSH')
    .option('--fanout <n>', 'SSH connections opened at once', positiveInt, 32)
    .option('--require-all', 'fail (exit 1) if any host fails to start', false)
    .option('--detach', 'return once the cluster is up, leaving a background controller', false)
    .option('--name <name>', 'cluster name (default: the host file name, or "local")', clusterName)
    .option('--adapt', 'adaptive from the start (like sshcluster adapt); begins at --min workers', false)
    .option('--min <n>', 'with --adapt: minimum workers (default 0)', wholeNumber)
    .option('--max <n>', 'with --adapt: maximum workers', wholeNumber)
    .option('--no-tui', 'plain prefixed log lines instead of the dashboard (the default off a terminal)')
    .option('--json', 'write events as NDJSON instead of plain lines', false)
    .option(
      '--metrics <[host]:port>',
      'serve GET /metrics (Prometheus text) from the controller; HOST defaults to 127.0.0.1',
      listenAddress,
    )
    .option('--python <path>', 'local cluster only: the Python interpreter that has distributed')
    .option(
      '--nworkers <n>',
      "local cluster only: worker processes (default: from this machine's cores, as Dask's LocalCluster)",
      positiveInt,
    )
    .option('--nthreads <n>', "local cluster only: threads per worker (default: as Dask's LocalCluster)", positiveInt)
    .addOption(
      new Option(
        '--security <mode>',
        "tls or none, instead of the host file's security: (the local cluster is plain TCP unless --security tls)",
      ).choices(['tls', 'none']),
    )
    .addOption(
      new Option('--ready-timeout <duration>', 'how long to wait for the scheduler and workers to register')
        .argParser(timeLimit)
        .default(120, '120s'),
    )
    .addOption(new Option('--controller-child').hideHelp().default(false))
    .action(async (file: string | undefined, o: UpFlags) => {
      // Checked here, before a background controller is started: it was said only as that
      // controller's exit, without a hint.
      const adapt = adaptFlags(o);
      const size = { ...(o.nworkers ? { nworkers: o.nworkers } : {}), ...(o.nthreads ? { nthreads: o.nthreads } : {}) };
      if (o.detach && !o.controllerChild) {
        const args = process.argv.slice(2).filter((a) => a !== '--detach');
        const { runDetached } = await import('../app/commands/detach.js');
        done(
          await runDetached(ctx, {
            file,
            name: o.name,
            python: o.python,
            size,
            json: o.json,
            security: o.security,
            mainScript: process.argv[1]!,
            childArgs: args,
          }),
        );
        return;
      }
      // In the background controller, start-up events also go to the waiting parent,
      // which first sends the spec it loaded.
      const report = o.controllerChild && process.send ? reporter() : undefined;
      const spec = report ? await specFromParent() : undefined;
      // Only a background controller's processes wait for adoption when it dies.
      const { DETACHED_ORPHAN_GRACE_S, runUp } = await import('../app/commands/up.js');
      const orphanGraceS = o.controllerChild ? DETACHED_ORPHAN_GRACE_S : 0;
      done(
        await runUp(ctx, {
          file,
          fanout: o.fanout,
          requireAll: o.requireAll,
          json: o.json,
          python: o.python,
          size,
          name: o.name,
          readyTimeoutMs: o.readyTimeout * 1000,
          report,
          adapt,
          orphanGraceS,
          tui: o.tui,
          security: o.security,
          metrics: o.metrics,
          spec,
        }),
      );
    });
}

function specFromParent(): Promise<ClusterSpec> {
  return new Promise((resolve, reject) => {
    process.once('message', (m: { spec?: ClusterSpec }) =>
      m.spec ? resolve(m.spec) : reject(new Error('the parent of this controller sent no spec')),
    );
    process.once('disconnect', () =>
      reject(new Error('the parent of this controller went away before sending the spec')),
    );
  });
}

function reporter(): (e: ClusterEvent) => void {
  let open = true;
  return (e) => {
    // The parent shows start-up progress only: process output would queue up in the
    // channel ahead of it (a flooding worker held up "started" and `up --detach`).
    if (!open || !process.connected || e.kind === 'process-line') return;
    // The parent may be gone (killed, its terminal closed): this controller goes on, and
    // a failed send is not an unhandled 'error' that would end it with its processes.
    process.send!(e, undefined, {}, (err) => {
      if (err) open = false;
    });
    if (e.kind === 'cluster-up') {
      open = false;
      process.disconnect();
    }
  };
}

function adaptFlags(o: UpFlags): { minimum?: number; maximum?: number } | undefined {
  if (!o.adapt) {
    if (o.min !== undefined || o.max !== undefined) {
      throw new UsageError('--min and --max go with --adapt', {
        hint: 'add --adapt to start adaptive between them, or leave them out for a fixed size',
      });
    }
    return undefined;
  }
  // Here, not in the controller: `up --detach` said it as the background controller's exit.
  if (o.min !== undefined && o.max !== undefined && o.min > o.max)
    throw new UsageError(`--min ${o.min} is above --max ${o.max}`, { hint: 'give a --min at most --max' });
  return { ...(o.min !== undefined ? { minimum: o.min } : {}), ...(o.max !== undefined ? { maximum: o.max } : {}) };
}
