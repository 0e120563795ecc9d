// The shape of every command we send to a host's login shell (POSIX-like): the host's
// setup lines, then the environment read from stdin, then the body. Env values never
// appear on a command line (sshd runs `$SHELL -c COMMAND`, and /proc/<pid>/cmdline is
// world-readable): they arrive on the command's stdin as `export NAME='value'` lines,
// one per variable, ended by an empty line, and the shell evals them. `read` takes
// a pipe byte by byte, so what follows the block on stdin stays for the program.
// Setup runs with stdin from /dev/null: a setup command that reads stdin must not eat
// the block (nor, for the launcher, the channel it watches).

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
    if (value.includes('\0')) throw new Error(`the value of ${name} contains a NUL character, which no environment can hold`);
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
