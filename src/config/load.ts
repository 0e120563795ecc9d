// Host file → ClusterSpec: read → YAML → schema (read-file) → layout → rules →
// normalize. Only the reads (the host file, ~/.ssh/config, the user's own TLS files)
// go through ctx.readFile; everything else is pure.
import { basename, dirname, extname, resolve } from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import { ConfigError } from '../errors.js';
import { checkIdentityFiles } from './hosts/identity-files.js';
import { layoutHosts } from './layout.js';
import { buildClusterSpec } from './normalize.js';
import { readHostFile } from './read/read-file.js';
import { buildSecurity } from './read/read-security.js';
import { checkRules } from './rules.js';
import type { ClusterSpec } from './spec.js';
import { createSshResolver, type SshResolver } from './hosts/ssh-config.js';
import { decodeUtf8 } from './read/utf8.js';
import type { Source } from './read/yaml-cursor.js';

export interface LoadContext {
  /** Throws when the file is missing. Bytes are checked as UTF-8 (host file only). */
  readFile(path: string): string | Uint8Array;
  env: Record<string, string | undefined>;
  homedir: string;
  cwd: string;
  /** Local user name: the last fallback for the remote user, as with ssh. */
  username: string;
}

export function loadHostFile(path: string, ctx: LoadContext): ClusterSpec {
  let data: string | Uint8Array;
  try {
    data = ctx.readFile(resolve(ctx.cwd, path));
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    const hint =
      code === 'ENOENT'
        ? `no file at ${resolve(ctx.cwd, path)}: give the path of your host file (config.example.yaml shows one); without one, sshcluster up starts a local cluster`
        : code === 'EISDIR'
          ? 'that is a directory: give the host file inside it'
          : code === 'EACCES'
            ? 'make it readable by you (chmod u+r)'
            : undefined;
    throw new ConfigError({ file: path }, `cannot read the host file: ${(err as Error).message}`, hint ? { hint } : {});
  }
  return parseHostFile(typeof data === 'string' ? data : decodeUtf8(data, path), path, ctx);
}

export function parseHostFile(text: string, fileLabel: string, ctx: LoadContext): ClusterSpec {
  const raw = readHostFile(parseYaml(text, fileLabel));
  const layout = layoutHosts(raw);
  checkRules(raw, layout);
  const source = resolve(ctx.cwd, fileLabel);
  const connectCtx = {
    resolveSsh: sshResolver(ctx),
    env: ctx.env,
    homedir: ctx.homedir,
    cwd: ctx.cwd,
    username: ctx.username,
    fileDir: dirname(source),
  };
  const files = { fileDir: connectCtx.fileDir, homedir: ctx.homedir, readFile: ctx.readFile };
  checkIdentityFiles(raw, { ...files, env: ctx.env });
  const spec = buildClusterSpec(raw, layout, { name: defaultName(fileLabel), source }, connectCtx);
  return { ...spec, security: buildSecurity(raw.security, files) };
}

function parseYaml(text: string, file: string): Source {
  const lines = new LineCounter();
  // prettyErrors off: the pretty form quotes the source line, which may hold a secret.
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  const err = doc.errors[0];
  if (err) {
    const { line, col } = lines.linePos(err.pos[0]);
    // YAML notices an unclosed [ or { where the next line starts: say where it opened.
    const open = /^Flow (sequence|map)/.test(err.message) ? unclosedBracket(text, err.pos[0]) : undefined;
    const hint =
      open === undefined
        ? undefined
        : `the ${text[open]} opened at line ${lines.linePos(open).line}, column ${lines.linePos(open).col} is not closed`;
    if (err.code === 'DUPLICATE_KEY') throw duplicateKey(text, file, line, col);
    throw new ConfigError({ file, line, col }, `invalid YAML: ${err.message}`, hint ? { hint } : {});
  }
  return { file, doc, lines };
}

/**
 * YAML's "Map keys must be unique" names neither the key nor where it was first: both,
 * from the text (the key starts at line:col; its first use is the nearest line above at
 * the same column that starts with it). A flow map ({a: 1, a: 2}) gets the key alone.
 */
function duplicateKey(text: string, file: string, line: number, col: number): ConfigError {
  const rows = text.split('\n');
  const keyIn = (rest: string): string | undefined => {
    const m = /^(?:"([^"]*)"|'([^']*)'|([^:#"'{}[\],]*?))\s*:/.exec(rest);
    return m ? (m[1] ?? m[2] ?? m[3] ?? '').trim() : undefined;
  };
  // A block key above: the same column, only blanks before it.
  const keyAt = (row: string | undefined): string | undefined =>
    row === undefined || row.length < col - 1 || row.slice(0, col - 1).trim() !== ''
      ? undefined
      : keyIn(row.slice(col - 1));
  const name = keyIn(rows[line - 1]!.slice(col - 1));
  if (!name)
    return new ConfigError({ file, line, col }, 'invalid YAML: a key appears twice in the same mapping', {
      hint: 'keep one of them',
    });
  let first = -1;
  for (let i = line - 2; i >= 0 && first < 0; i--) if (keyAt(rows[i]) === name) first = i;
  const where = first >= 0 ? ` (first at line ${first + 1})` : '';
  return new ConfigError({ file, line, col }, `invalid YAML: "${name}" appears twice in the same mapping${where}`, {
    hint: `keep one "${name}"`,
  });
}

/** Offset of the last [ or { before `end` that is still open, outside quotes and comments. */
function unclosedBracket(text: string, end: number): number | undefined {
  const stack: number[] = [];
  for (let i = 0; i < end; i++) {
    const c = text[i]!;
    if (c === '"' || c === "'") {
      // A quoted scalar: to its closing quote ('' and \" stay inside), or the end of the line.
      for (i++; i < end && text[i] !== '\n'; i++) {
        if (c === '"' && text[i] === '\\') i++;
        else if (text[i] === c && !(c === "'" && text[i + 1] === "'")) break;
        else if (text[i] === c) i++;
      }
    } else if (c === '#' && (i === 0 || /\s/.test(text[i - 1]!))) {
      while (i < end && text[i] !== '\n') i++;
    } else if (c === '[' || c === '{') stack.push(i);
    else if ((c === ']' || c === '}') && stack.length) stack.pop();
  }
  return stack.at(-1);
}

/** A missing ~/.ssh/config is normal; an unreadable or unparsable one is reported. */
function sshResolver(ctx: LoadContext): SshResolver {
  const path = resolve(ctx.homedir, '.ssh', 'config');
  let text: string | undefined;
  try {
    const data = ctx.readFile(path);
    text = typeof data === 'string' ? data : Buffer.from(data).toString('utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== undefined && code !== 'ENOENT' && code !== 'ENOTDIR') {
      throw new ConfigError({ file: path }, `cannot read ~/.ssh/config: ${(err as Error).message}`);
    }
  }
  try {
    return createSshResolver(text);
  } catch (err) {
    throw new ConfigError({ file: path }, `cannot parse ~/.ssh/config: ${(err as Error).message}`);
  }
}

/** "lab.yaml" → "lab"; characters a cluster name may not hold become "-". */
export function defaultName(fileLabel: string): string {
  const base = basename(fileLabel, extname(fileLabel)).replace(/[^A-Za-z0-9._-]/g, '-');
  return /^[A-Za-z0-9]/.test(base) ? base : `cluster-${base}`;
}
