// The one command string that starts a Dask process on a host: setup lines, exported
// env (with the cluster tag), then the launcher exec'd in place of the shell so the
// PID the launcher reports is the one we tag and stop.
import { LAUNCHER, LAUNCHER_GRACE_ENV } from './launcher.js';

/** Exported into every process we start; how leftovers are found at teardown. */
export const CLUSTER_ID_ENV = 'SSHCLUSTER_ID';

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
  const lines = [...cmd.setup];
  for (const [name, value] of Object.entries(env)) {
    if (!ENV_NAME.test(name)) throw new Error(`not a valid environment variable name: ${name}`);
    lines.push(`export ${name}=${quoteWord(value)}`);
  }
  const python = quotePath(cmd.launcherPython ?? program);
  const launcher = quoteWord(cmd.launcher ?? LAUNCHER);
  lines.push(`exec ${python} -c ${launcher} ${[quotePath(program), ...args.map(quoteWord)].join(' ')}`);
  return lines.join('\n');
}

/** `exec sh -c '<script>'`: the script runs under sh whatever the login shell is. */
export function viaSh(script: string): string {
  return `exec sh -c ${quoteWord(script)}`;
}
