// The programs that run on the hosts (./remote/*.py, copied next to this module into
// dist/remote/ by the build), read once and started through boot.py: `python -c BOOT NAME
// SIZE KEY ARG…` with the source on stdin. Installed programs (the launcher and the
// keeper, which live as long as their process) show in ps as `python …/NAME ARG…`;
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

export function remoteProgram(file: ProgramFile): RemoteProgram {
  const source = programSource(file);
  return { name: NAMES[file], source, key: createHash('sha256').update(source).digest('hex').slice(0, 16) };
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
  return [python, '-c', quoteBoot(), p.name, String(size), install ? p.key : '-', ...args].join(' ');
}

function quoteBoot(): string {
  const boot = bootSource();
  if (boot.includes("'")) throw new Error('boot.py must not contain single quotes');
  return `'${boot}'`;
}
