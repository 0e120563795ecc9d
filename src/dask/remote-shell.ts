// The shape of every command we send to a host's login shell (POSIX-like): the host's
// setup lines, then the environment read from stdin, then the body. Env values never
// appear on a command line (sshd runs `$SHELL -c COMMAND`, and /proc/<pid>/cmdline is
// world-readable): they arrive on the command's stdin as `export NAME='value'` lines,
// one per variable, ended by an empty line, and the shell evals them. `read` takes
// a pipe byte by byte, so what follows the block on stdin stays for the program.
// Setup runs with stdin from /dev/null: a setup command that reads stdin must not eat
// the block (nor, for the launcher, the channel it watches).

import { quoteWord } from '../shell-word.js';

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export { quoteWord };

/** Like quoteWord, but a leading `~/` still expands (remote_python: ~/venv/bin/python). */
export function quotePath(path: string): string {
  if (path === '~') return '"$HOME"';
  if (path.startsWith('~/')) return `"$HOME"/${quoteWord(path.slice(2))}`;
  return quoteWord(path);
}

export function shellQuote(args: readonly string[]): string {
  return args.map(quoteWord).join(' ');
}

/** A command for a host's login shell, and what to write to its stdin first. */
export interface RemoteInvocation {
  command: string;
  /** Written at once; holds the env values, so it never goes anywhere else. */
  input: string;
}

// Shell variables of the reader; `nl` stands for a newline inside a value, so that
// every export is one line and no value can end the block early.
const READ_ENV = [
  '__sshc_e=',
  'while IFS= read -r __sshc_l && [ -n "$__sshc_l" ]; do __sshc_e="$__sshc_e$__sshc_l',
  '"; done',
  "__sshc_nl='",
  "'",
  'eval "$__sshc_e"',
  'unset __sshc_e __sshc_l __sshc_nl',
].join('\n');

/** The env block for stdin: one `export` line per variable, then an empty line. */
export function envInput(env: Readonly<Record<string, string>>): string {
  const lines = Object.entries(env).map(([name, value]) => {
    if (!ENV_NAME.test(name)) throw new Error(`not a valid environment variable name: ${name}`);
    if (value.includes('\0'))
      throw new Error(`the value of ${name} contains a NUL character, which no environment can hold`);
    return `export ${name}='${value.replace(/'/g, `'\\''`).replace(/\n/g, `'"$__sshc_nl"'`)}'`;
  });
  return lines.map((l) => `${l}\n`).join('') + '\n';
}

/** `export NAME=value` lines for a user's own shell (`sshcluster env`), values quoted. */
export function exportLines(env: Readonly<Record<string, string>>): string[] {
  return Object.entries(env).map(([name, value]) => {
    if (!ENV_NAME.test(name)) throw new Error(`not a valid environment variable name: ${name}`);
    return `export ${name}=${quoteWord(value)}`;
  });
}

/** setup (stdin from /dev/null), the env block from stdin, then `body`. */
export function shellScript(setup: readonly string[], body: string): string {
  // `:` first: a setup of comment lines only still makes a valid group.
  const parts = setup.length ? [`{ :\n${setup.join('\n')}\n} </dev/null`] : [];
  return [...parts, READ_ENV, body].join('\n');
}

/** `exec sh -c '<script>'`: the script runs under sh whatever the login shell is. */
export function viaSh(script: string): string {
  return `exec sh -c ${quoteWord(script)}`;
}

/**
 * remote_python's default: on every host (and for the local cluster) the first of
 * PYTHON_CANDIDATES that has distributed. A login shell's `python3` is often a venv or
 * a pyenv shim without it, while the system one has it.
 */
export const AUTO_PYTHON = 'auto';
export const PYTHON_CANDIDATES: readonly string[] = ['python3', '/usr/bin/python3', 'python'];
/**
 * Exits 0 when distributed is installed, and prints "distributed": where the output is
 * read, a program that exits 0 without running Python (/bin/true) does not pass. Finds it
 * without importing it (that takes seconds).
 */
export const HAS_DISTRIBUTED_PY =
  'import importlib.util as u, sys; s = u.find_spec("distributed"); print("distributed" if s else ""); sys.exit(s is None)';
/** What a host prints (stderr, exit 127) when no candidate has distributed. */
export const NO_PYTHON_MESSAGE = `sshcluster: no Python with distributed on this host (tried ${PYTHON_CANDIDATES.join(', ')})`;

/** sh: sets $sshc_py to the first candidate that has distributed, or to "" when none has it. */
export function discoverPython(): string {
  const test = quoteWord(HAS_DISTRIBUTED_PY);
  return `sshc_py=; for c in ${PYTHON_CANDIDATES.map(quoteWord).join(' ')}; do if "$c" -c ${test} >/dev/null 2>&1; then sshc_py=$c; break; fi; done`;
}

/** What `exec` names the cluster's interpreter on a host by (not the login shell's python3). */
export const PYTHON_ENV = 'SSHCLUSTER_PYTHON';

/**
 * sh: exports SSHCLUSTER_PYTHON, the interpreter the cluster's processes run on this
 * host: remote_python as given, or for `auto` the full path of the one found (left unset
 * when no candidate has distributed).
 */
export function exportPython(python: string): string {
  if (python !== AUTO_PYTHON) return `export ${PYTHON_ENV}=${quotePath(python)}`;
  return [
    discoverPython(),
    `if [ -n "$sshc_py" ]; then ${PYTHON_ENV}=$(command -v "$sshc_py") && export ${PYTHON_ENV}; fi`,
    'unset sshc_py',
  ].join('\n');
}

/**
 * The sh word that runs remote_python, and the lines to put before it: for `auto`, the
 * discovery, in the same command (no extra round trip, no extra run of the shell rc),
 * failing with NO_PYTHON_MESSAGE; `report` says on stderr which one it found (the first
 * line of a process's log).
 */
export function pythonWord(python: string, o: { report?: boolean } = {}): { lines: string[]; word: string } {
  if (python !== AUTO_PYTHON) return { lines: [], word: quotePath(python) };
  const lines = [discoverPython(), `[ -n "$sshc_py" ] || { echo ${quoteWord(NO_PYTHON_MESSAGE)} >&2; exit 127; }`];
  if (o.report)
    lines.push(
      `echo "sshcluster: python $(command -v "$sshc_py") (first with distributed of ${PYTHON_CANDIDATES.join(', ')})" >&2`,
    );
  return { lines, word: '"$sshc_py"' };
}
