// The one command that starts a Dask process on a host: setup lines, the env (with the
// cluster tag) from stdin, then the launcher (launcher.py, through boot.py the first time
// on a host, then from the file boot.py installed) exec'd in
// place of the shell so the PID the launcher reports is the one we tag and stop. And
// the command that adopts a running one through the keeper (keeper.py).
import { installedExec, remoteProgram, programCommand, type ProgramFile } from './remote-programs.js';
import { envInput, pythonWord, quoteWord, shellScript, type RemoteInvocation } from './remote-shell.js';
import type { NamedFile } from '../tls/tls-files.js';
import { sweepLines, type SweepEscalation } from './sweep-script.js';

export {
  quoteWord,
  quotePath,
  shellQuote,
  viaSh,
  envInput,
  exportLines,
  shellScript,
  pythonWord,
  discoverPython,
  AUTO_PYTHON,
  PYTHON_CANDIDATES,
  HAS_DISTRIBUTED_PY,
  NO_PYTHON_MESSAGE,
} from './remote-shell.js';
export type { RemoteInvocation } from './remote-shell.js';

/** Exported into every process we start; how leftovers are found at teardown. */
export const CLUSTER_ID_ENV = 'SSHCLUSTER_ID';
/**
 * The process's name, also in the launcher's argv (ps) and its orphan log's name. Not
 * SSHCLUSTER_NAME: that is the cluster a user's Python attaches to (CLUSTER_NAME_ENV here).
 */
export const PROCESS_NAME_ENV = 'SSHCLUSTER_PROCESS';
/** The cluster's name: what `sshcluster.Cluster()` attaches to from a task. */
export const CLUSTER_NAME_ENV = 'SSHCLUSTER_CLUSTER';
/** Seconds between SIGTERM and SIGKILL when the launcher stops its group (default 10). */
export const LAUNCHER_GRACE_ENV = 'SSHCLUSTER_GRACE';
/** Seconds an orphaned process waits for a new controller (default 0: stop at once). */
export const ORPHAN_GRACE_ENV = 'SSHCLUSTER_ORPHAN_GRACE';

export interface RemoteCommand {
  /** Shell lines run first, as written (`source venv/bin/activate`, `module load …`). */
  setup: readonly string[];
  env: Readonly<Record<string, string>>;
  /** The process's name: the launcher's first argument. */
  name: string;
  /** The Dask command; argv[0] is the python (see schedulerArgv / workerArgv). */
  argv: readonly string[];
  clusterId: string;
  /** Seconds between SIGTERM and SIGKILL when the launcher stops its group. */
  graceS?: number;
  /** Seconds the process waits for a new controller after its channel closes (default 0). */
  orphanGraceS?: number;
  /** Files the launcher writes first; the argv names them under CLUSTER_FILES_DIR. */
  files?: ClusterFiles;
}

export interface ClusterFiles {
  files: readonly NamedFile[];
  /**
   * Unwritten optional files do not stop the process: it starts without each argument
   * that names one, and the option before it (the scheduler without its preload).
   */
  optional: boolean;
}

/**
 * The directory of the cluster's files on a host, as an argv names it (`DIR/ca.pem`):
 * the launcher writes the files into the cluster's private directory there and puts
 * that directory's path in place of this token (launcher.py's FILES_TOKEN).
 */
export const CLUSTER_FILES_DIR = '@sshcluster-files@';

/**
 * A POSIX sh script (newline-separated, so multi-line setup entries stay intact) to
 * run with `sh -c SCRIPT` locally, or as an SSH exec command when the login shell is
 * POSIX-like (wrap it with viaSh() when it may not be), and its stdin's first bytes.
 * The launcher then reads its stdin: keep it open for as long as the process should live.
 */
export function buildRemoteCommand(cmd: RemoteCommand): RemoteInvocation {
  const [program, ...args] = cmd.argv;
  if (program === undefined) throw new Error('buildRemoteCommand: empty argv');
  const env: Record<string, string> = { ...cmd.env, [CLUSTER_ID_ENV]: cmd.clusterId };
  if (cmd.graceS !== undefined) env[LAUNCHER_GRACE_ENV] = String(cmd.graceS);
  if (cmd.orphanGraceS) env[ORPHAN_GRACE_ENV] = String(cmd.orphanGraceS);
  const files = cmd.files?.files.length ? cmd.files : undefined;
  // For each file a line "NAME SIZE", then its content (files.py, parse_files).
  const data = files ? files.files.map((f) => `${f.name} ${Buffer.byteLength(f.content)}\n${f.content}`).join('') : '';
  const option = files ? [`--${files.optional ? 'optional-files' : 'files'}=${Buffer.byteLength(data)}`] : [];
  return hostProgram(
    { setup: cmd.setup, env, python: program, report: true },
    'launcher',
    true,
    (py) => [...option, quoteWord(cmd.name), py, ...args.map(quoteWord)],
    data,
  );
}

/**
 * One of our programs run on a host the one way: setup, the env block from stdin,
 * remote_python found (for `auto`), then the program exec'd in place of the shell with
 * its source (and `input`, for the program itself) on stdin. `args` gets the python word.
 */
function hostProgram(
  o: { setup: readonly string[]; env: Readonly<Record<string, string>>; python: string; report?: boolean },
  file: ProgramFile,
  install: boolean,
  args: (python: string) => string[],
  input = '',
  first: string[] = [],
): RemoteInvocation {
  const program = remoteProgram(file);
  const py = pythonWord(o.python, { report: o.report });
  const direct = install ? installedExec(py.word, program, args(py.word)) : [];
  const exec = `exec ${programCommand(py.word, program, install, args(py.word))}`;
  return {
    command: shellScript(o.setup, [...first, ...py.lines, ...direct, exec].join('\n')),
    input: envInput(o.env) + program.source + input,
  };
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

/** Runs the keeper on the process `pid` the launcher started as `name`. */
export function buildKeeperCommand(cmd: KeeperCommand): RemoteInvocation {
  const env = { ...cmd.env, [CLUSTER_ID_ENV]: cmd.clusterId };
  return hostProgram({ ...cmd, env }, 'keeper', true, () => [quoteWord(cmd.name), String(cmd.pid)]);
}

export interface ClusterFilesCommand {
  setup: readonly string[];
  /** The host's env (its TMPDIR decides where the cluster's private directory is). */
  env: Readonly<Record<string, string>>;
  python: string;
  clusterId: string;
}

/** Removes the cluster's files on the host (cluster-files.py). */
export function buildClusterFilesCommand(cmd: ClusterFilesCommand): RemoteInvocation {
  return hostProgram(cmd, 'cluster-files', false, () => ['remove', quoteWord(cmd.clusterId)]);
}

/**
 * `scan` (shell text that prints what of ours still runs there) with the stop of what it
 * finds, and, only once nothing is left, the removal of the cluster's files, in one exec:
 * a teardown's last look at a host costs one login shell, whatever it finds. Where the
 * host's last launcher removed them as it ended (launcher.py, remove_if_last), the look
 * ends before the Python: it runs only while anything is left at their paths (a symlink
 * too, which its checks refuse and report).
 */
export function buildSweepCommand(cmd: ClusterFilesCommand, scan: string, esc: SweepEscalation): RemoteInvocation {
  // files.py's FILES_SUB and SCRATCH_SUB under the cluster's directory.
  const dir = `__sshc_c="\${TMPDIR:-/tmp}/sshcluster-$(id -u)"/${quoteWord(cmd.clusterId)}`;
  const there = ['files', 'scratch'].map((sub) => `[ -e "$__sshc_c/${sub}" ] || [ -L "$__sshc_c/${sub}" ]`);
  return hostProgram(cmd, 'cluster-files', false, () => ['remove', quoteWord(cmd.clusterId)], '', [
    ...sweepLines(scan, esc),
    dir,
    `if ! { ${there.join(' || ')}; }; then exit 0; fi`,
  ]);
}
