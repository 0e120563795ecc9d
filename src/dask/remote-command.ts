// The one command string that starts a Dask process on a host: setup lines, exported
// env (with the cluster tag), then the launcher exec'd in place of the shell so the
// PID the launcher reports is the one we tag and stop. And the command that adopts a
// running one through the keeper.
import { KEEPER } from './keeper.js';
import { LAUNCHER, LAUNCHER_GRACE_ENV, ORPHAN_GRACE_ENV } from './launcher.js';
import { LOG_DIR_PREFIX, safePathPart } from './launcher-relay.js';

/** Exported into every process we start; how leftovers are found at teardown. */
export const CLUSTER_ID_ENV = 'SSHCLUSTER_ID';
/** The process's name; the launcher names its orphan log file after it. */
export const PROCESS_NAME_ENV = 'SSHCLUSTER_NAME';

const SAFE_WORD = /^[A-Za-z0-9_\-+.,/:@%]+$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** POSIX sh quoting of one word: bare when harmless, else single-quoted. */
export function quoteWord(word: string): string {
  if (SAFE_WORD.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Like quoteWord, but a leading `~/` still expands (remote_python: ~/venv/bin/python). */
export function quotePath(path: string): string {
  if (path === '~') return '"$HOME"';
  if (path.startsWith('~/')) return `"$HOME"/${quoteWord(path.slice(2))}`;
  return quoteWord(path);
}

export function shellQuote(args: readonly string[]): string {
  return args.map(quoteWord).join(' ');
}

export interface RemoteCommand {
  /** Shell lines run first, as written (`source venv/bin/activate`, `module load …`). */
  setup: readonly string[];
  env: Readonly<Record<string, string>>;
  /** The Dask command; argv[0] is the python (see schedulerArgv / workerArgv). */
  argv: readonly string[];
  clusterId: string;
  /** The launcher program; default LAUNCHER. */
  launcher?: string;
  /** Python that runs the launcher; default argv[0]. */
  launcherPython?: string;
  /** Seconds between SIGTERM and SIGKILL when the launcher stops its group. */
  graceS?: number;
  /** Seconds the process waits for a new controller after its channel closes (default 0). */
  orphanGraceS?: number;
}

/**
 * A POSIX sh script (newline-separated, so multi-line setup entries stay intact) to
 * run with `sh -c SCRIPT` locally, or as an SSH exec command when the login shell is
 * POSIX-like; wrap it with viaSh() when it may not be. The launcher reads its stdin:
 * keep the channel's stdin open for as long as the process should live.
 */
export function buildRemoteCommand(cmd: RemoteCommand): string {
  const [program, ...args] = cmd.argv;
  if (program === undefined) throw new Error('buildRemoteCommand: empty argv');
  const env: Record<string, string> = { ...cmd.env, [CLUSTER_ID_ENV]: cmd.clusterId };
  if (cmd.graceS !== undefined) env[LAUNCHER_GRACE_ENV] = String(cmd.graceS);
  if (cmd.orphanGraceS) env[ORPHAN_GRACE_ENV] = String(cmd.orphanGraceS);
  const python = quotePath(cmd.launcherPython ?? program);
  const launcher = quoteWord(cmd.launcher ?? LAUNCHER);
  const exec = `exec ${python} -c ${launcher} ${[quotePath(program), ...args.map(quoteWord)].join(' ')}`;
  return [...cmd.setup, ...exportLines(env), exec].join('\n');
}

export interface KeeperCommand {
  setup: readonly string[];
  /** The process's own env, so that setup and TMPDIR resolve as they did for it. */
  env: Readonly<Record<string, string>>;
  python: string;
  clusterId: string;
  name: string;
  pid: number;
}

/** Runs the keeper (keeper.ts) on the process `pid` the launcher started as `name`. */
export function buildKeeperCommand(cmd: KeeperCommand): string {
  const exec = `exec ${quotePath(cmd.python)} -c ${quoteWord(KEEPER)} ${cmd.pid} ${orphanLogPath(cmd.clusterId, cmd.name)}`;
  return [...cmd.setup, ...exportLines(cmd.env), exec].join('\n');
}

/** The launcher's orphan log, as a double-quoted sh word (it computes the same path). */
export function orphanLogPath(clusterId: string, name: string): string {
  return `"\${TMPDIR:-/tmp}/${LOG_DIR_PREFIX}$(id -u)/${safePathPart(clusterId)}/${safePathPart(name)}.log"`;
}

/** `export NAME=value` lines, values quoted for a POSIX shell. */
export function exportLines(env: Readonly<Record<string, string>>): string[] {
  return Object.entries(env).map(([name, value]) => {
    if (!ENV_NAME.test(name)) throw new Error(`not a valid environment variable name: ${name}`);
    return `export ${name}=${quoteWord(value)}`;
  });
}

/** `exec sh -c '<script>'`: the script runs under sh whatever the login shell is. */
export function viaSh(script: string): string {
  return `exec sh -c ${quoteWord(script)}`;
}
