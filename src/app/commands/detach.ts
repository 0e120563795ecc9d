// `up --detach`: the same `up`, run as a background controller in its own session.
// The parent shows start-up progress it receives over an IPC channel, and returns once
// the cluster is up; the controller's own output goes to controller.log.
import { fork } from 'node:child_process';
import fs from 'node:fs';
import { listRuns } from '../../control/log-runs.js';
import { ensureClusterDir, removeClusterDirIfEmpty, type ClusterPaths } from '../../control/paths.js';
import { ndjsonSink, plainSink } from '../../events/plain-sink.js';
import { safeText } from '../../events/terminal-text.js';
import type { ClusterEvent } from '../../events/types.js';
import { clusterHosts } from '../../config/spec.js';
import type { AppContext } from '../context.js';
import { pathsFor } from '../controller/control-endpoint.js';
import { refuseIfRunning } from './find-cluster.js';
import { loadSpec, localSpecFor, type LocalSize } from './cluster-spec.js';

/**
 * The background controller mostly waits, for days: V8 interprets its JavaScript and
 * never compiles it to machine code (no Sparkplug, no TurboFan). Their code and output
 * are ~5 MB of RSS it would otherwise keep (bench/rss.ts, 4 hosts: median 60.5 -> 55.7 MB). What
 * costs CPU there is native either way (ssh2's ciphers, TLS, JSON), and remote output
 * reaches it within its byte budget only: a 20 MB stderr flood took 380 ms of its CPU
 * with the compilers and 390 ms without.
 */
export const CONTROLLER_V8_FLAGS = ['--no-opt', '--no-sparkplug'];

/**
 * From this many hosts the controller's heap also grows in smaller steps (to 1.5x what
 * the last full GC left): at 10,000 hosts the peak RSS of a wave fell from 346-351 MB to
 * 243-252 MB for ~13% more CPU (docs/scale.md, "Bounded ticks"); at 1,000 it is ~100 MB
 * either way, so smaller clusters keep the CPU.
 */
export const LARGE_CLUSTER_HOSTS = 2_000;

/** The background controller's V8 flags for a cluster of this many hosts. */
export function controllerV8Flags(hosts: number): string[] {
  return hosts >= LARGE_CLUSTER_HOSTS ? [...CONTROLLER_V8_FLAGS, '--heap-growing-percent=50'] : CONTROLLER_V8_FLAGS;
}

export async function runDetached(
  ctx: AppContext,
  o: {
    file?: string;
    name?: string;
    python?: string;
    /** --nworkers/--nthreads of the local cluster. */
    size?: LocalSize;
    json?: boolean;
    security?: 'tls' | 'none';
    mainScript: string;
    childArgs: string[];
  },
): Promise<number> {
  // As `up`: cut short by a reader that went away (`| head -3`), it would leave the
  // background controller's start-up unwatched; it runs to the hand-over, output dropped.
  ctx.onReaderGone();
  // Config errors and a clash with a running cluster show here, before anything starts;
  // a dead controller's cluster is adopted by the child.
  const loaded = loadSpec(ctx, o.file, o.python, o.security, o.size);
  const name = o.name ?? loaded.name;
  const paths = pathsFor(ctx, name);
  const previous = await refuseIfRunning(
    paths,
    name,
    o.file === undefined ? undefined : { path: o.file, spec: loaded },
  );
  const spec = localSpecFor(loaded, previous, o.size);
  const freshLog = !fs.existsSync(paths.controllerLog);
  await ensureClusterDir(paths);
  const log = fs.openSync(paths.controllerLog, 'a', 0o600);
  const child = fork(o.mainScript, [...o.childArgs, '--controller-child'], {
    cwd: ctx.cwd,
    env: ctx.env,
    detached: true,
    execArgv: [...process.execArgv, ...controllerV8Flags(clusterHosts(spec).length)],
    stdio: ['ignore', log, log, 'ipc'],
  });
  fs.closeSync(log);
  // The spec goes over the channel: the controller neither reads the host file again
  // nor loads its reader (YAML, ~/.ssh/config), ~13 MB it would keep for days.
  child.send({ spec });
  // --json: every line on stdout is an event, the hand-over included.
  const show = (o.json ? ndjsonSink : plainSink)((t) => ctx.stdout.write(t));
  return await new Promise<number>((resolve) => {
    child.on('message', (e: ClusterEvent) => {
      if (e.kind === 'process-line') return;
      show(e);
      if (e.kind === 'cluster-up') {
        if (o.json)
          show({
            kind: 'notice',
            level: 'info',
            message: `controller running in the background (pid ${child.pid}); log: ${paths.controllerLog}`,
          });
        else {
          ctx.stdout.write(`Controller running in the background (pid ${child.pid}); log: ${paths.controllerLog}\n`);
          ctx.stdout.write(`  sshcluster status --name ${name}    sshcluster down --name ${name}\n`);
        }
        child.disconnect();
        child.unref();
        resolve(0);
      }
    });
    child.on('exit', (code) => {
      const tail = fs.existsSync(paths.controllerLog)
        ? whyItEnded(fs.readFileSync(paths.controllerLog, 'utf8').trim().split('\n'))
        : [];
      ctx.stderr.write(
        // Said as every error is (main's catch is not on this path), then why, from its log.
        `sshcluster: the background controller exited (code ${code}) before the cluster was up\n` +
          safeText(tail.map((l) => `  ${l}`).join('\n')) +
          '\n',
      );
      const done = () => resolve(code === 2 ? 2 : 1);
      void (freshLog ? leaveNothing(paths) : Promise.resolve()).then(done, done);
    });
  });
}

/**
 * The controller of a first `up` of this name ended before the cluster was up, and left
 * neither a state file (processes to stop) nor a recorded run: its log, whose end was
 * just shown, goes, and the dirs made for it when empty (the controller's close removed
 * what else it made). A name that was never up stays unknown (`--name` of it: exit 2).
 */
async function leaveNothing(paths: ClusterPaths): Promise<void> {
  if (fs.existsSync(paths.stateFile) || listRuns(paths.logsDir).length) return;
  await fs.promises.rm(paths.controllerLog, { force: true });
  await removeClusterDirIfEmpty(paths);
}

/**
 * What the controller's log says about its end: from its last error (main's
 * `sshcluster: …` line, its hint and the output it quotes) to the end, at most 24 lines;
 * without one, the last 8 lines.
 */
export function whyItEnded(lines: readonly string[]): string[] {
  for (let at = lines.length - 1; at >= 0; at--)
    if (lines[at]!.startsWith('sshcluster: ')) return lines.slice(at, at + 24);
  return lines.slice(-8);
}
