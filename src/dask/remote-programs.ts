// The programs that run on the hosts (./remote/*.py, copied next to this module into
// dist/remote/ by the build), read once and started through boot.py: `python -c BOOT NAME
// SIZE KEY ARG…` with the source on stdin. Installed programs (the launcher and the
// keeper, which live as long as their process) show in ps as `python …/NAME ARG…`, and
// once installed on a host the shell starts them from there (installedExec);
// check's short-lived probes run inline, so the interpreter under test is used
// exactly as the host file names it.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

export type ProgramFile = 'launcher' | 'keeper' | 'check-probe' | 'check-listener' | 'cluster-files';

const NAMES: Record<ProgramFile, string> = {
  launcher: 'sshcluster-launcher',
  keeper: 'sshcluster-keeper',
  'check-probe': 'sshcluster-probe',
  'check-listener': 'sshcluster-listener',
  'cluster-files': 'sshcluster-files',
};

export interface RemoteProgram {
  /** What the program is called on the host (its file name there, what ps shows). */
  name: string;
  /** The interpreter's options: `-S` for those that use the standard library only. */
  flags: readonly string[];
  source: string;
  /** Content hash: the host directory it is installed in. */
  key: string;
}

const cache = new Map<string, string>();

/** A file of ./remote, read on first use. */
export function remoteSource(file: string): string {
  let text = cache.get(file);
  if (text === undefined) {
    text = readFileSync(new URL(`./remote/${file}`, import.meta.url), 'utf8');
    cache.set(file, text);
  }
  return text;
}

/**
 * The shared parts in front of a program: shared.py (the directory check, the stdin
 * watch) for those that keep files on the host; files.py (the cluster's files) for the
 * launcher, which writes them, and cluster-files, which removes them.
 */
const PARTS: Partial<Record<ProgramFile | 'boot', readonly string[]>> = {
  launcher: ['shared.py', 'files.py'],
  'cluster-files': ['shared.py', 'files.py'],
  keeper: ['shared.py'],
  boot: ['shared.py'],
};

/** A program's text as it runs on the host: its file, behind the shared parts it uses. */
function programSource(file: ProgramFile | 'boot'): string {
  return [...(PARTS[file] ?? []), `${file}.py`].map(remoteSource).join('\n\n');
}

/**
 * Programs that import nothing beyond the standard library start without `site` (-S):
 * no site-packages scan and none of its .pth files. That is ~1 ms per start on Debian's
 * python3, ~20 ms on a pyenv Python whose .pth imports certifi (conda environments are
 * of that kind). check's probes run the interpreter as the host file names it, site and
 * all: that is what they test.
 */
const STDLIB_ONLY: ReadonlySet<ProgramFile> = new Set(['launcher', 'keeper', 'cluster-files']);

export function remoteProgram(file: ProgramFile): RemoteProgram {
  const source = programSource(file);
  return {
    name: NAMES[file],
    flags: STDLIB_ONLY.has(file) ? ['-S'] : [],
    source,
    key: createHash('sha256').update(source).digest('hex').slice(0, 16),
  };
}

/** boot.py without its comment lines: it travels on the command line (`-c`). */
export function bootSource(): string {
  return programSource('boot')
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.trimStart().startsWith('#'))
    .join('\n');
}

/**
 * The command that runs `program` under `python` (an sh word, already quoted) with
 * `args` (sh words, already quoted); its stdin must carry `p.source` (after the env block).
 */
export function programCommand(python: string, p: RemoteProgram, install: boolean, args: readonly string[]): string {
  const size = Buffer.byteLength(p.source);
  return [python, ...p.flags, '-c', quoteBoot(), p.name, String(size), install ? p.key : '-', ...args].join(' ');
}

/**
 * Shell lines that exec an installed program straight from its file, when an earlier
 * launch left it there: boot.py's Python start is skipped (~10 ms of CPU on each host,
 * every launch after a host's first). The file is taken only when each level of
 * ${TMPDIR:-/tmp}/sshcluster-<uid>/KEY/NAME is ours and no symlink, as boot.py's
 * private_dir would have it; its mode is not read (sh cannot without a fork): only we
 * could have opened our directory to others, and a file they put there would be theirs.
 * Its source still follows on stdin: SSHCLUSTER_SOURCE_SIZE says how much to read past
 * (shared.py). Otherwise the lines do nothing, and the boot command after them installs it.
 * The uid is bash's and zsh's $UID where the login shell has it (`id -u` is a fork and an
 * exec, ~1 ms before each launch); a wrong one (sh with UID in its environment) names a
 * directory that is not ours, and the boot command runs as when nothing is installed.
 */
export function installedExec(python: string, p: RemoteProgram, args: readonly string[]): string[] {
  const file = `"$__sshc_d"/${p.key}/${p.name}`;
  return [
    '__sshc_d="${TMPDIR:-/tmp}/sshcluster-${UID:-$(id -u 2>/dev/null)}" __sshc_ok=1',
    `for __sshc_p in "$__sshc_d" "$__sshc_d"/${p.key} ${file}; do`,
    '  if [ -L "$__sshc_p" ] || [ ! -O "$__sshc_p" ]; then __sshc_ok=; fi',
    'done',
    `if [ -n "$__sshc_ok" ] && [ -f ${file} ]; then`,
    `  export SSHCLUSTER_SOURCE_SIZE=${Buffer.byteLength(p.source)}`,
    `  exec ${[python, ...p.flags, file, ...args].join(' ')}`,
    'fi',
    'unset __sshc_d __sshc_ok __sshc_p',
  ];
}

function quoteBoot(): string {
  const boot = bootSource();
  if (boot.includes("'")) throw new Error('boot.py must not contain single quotes');
  return `'${boot}'`;
}
