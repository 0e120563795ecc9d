// Expected failures carry a message, a hint and an exit code; main.ts prints them
// without a stack. Anything else reaching main.ts is a bug and is printed with one.

/** What the shell shows for a tool killed by SIGPIPE (128 + 13): the reader of stdout went away. */
export const READER_GONE_EXIT = 141;

export class ExpectedError extends Error {
  readonly hint?: string;
  readonly exitCode: number;
  constructor(message: string, opts: { hint?: string; exitCode?: number; cause?: unknown } = {}) {
    super(message, { cause: opts.cause });
    this.name = new.target.name;
    this.hint = opts.hint;
    this.exitCode = opts.exitCode ?? 1;
  }
}

/** Bad command-line usage: exit 2. */
export class UsageError extends ExpectedError {
  constructor(message: string, opts: { hint?: string } = {}) {
    super(message, { ...opts, exitCode: 2 });
  }
}

export interface ConfigErrorPosition {
  file: string;
  line?: number;
  col?: number;
  /** Path of the offending key, e.g. "hosts[2].port". */
  keyPath?: string;
}

/** A bad host file: exit 2, message starts with `file:line:col keyPath:`. */
export class ConfigError extends ExpectedError {
  readonly position: ConfigErrorPosition;
  readonly detail: string;
  constructor(position: ConfigErrorPosition, detail: string, opts: { hint?: string } = {}) {
    super(`${formatPosition(position)} ${detail}`, { ...opts, exitCode: 2 });
    this.position = position;
    this.detail = detail;
  }
}

/** Errors listed of a host file with many; the rest are counted. */
export const SHOWN_CONFIG_ERRORS = 20;

/**
 * The errors of one host file as one: a single error as it is; several in the order
 * written, each on its line with its position and hint, at most `shown`.
 */
export function configErrors(errors: readonly ConfigError[], shown = SHOWN_CONFIG_ERRORS): ConfigError {
  const seen = new Map<string, ConfigError>();
  for (const e of errors) if (!seen.has(e.message)) seen.set(e.message, e);
  const all = [...seen.values()].sort(
    (a, b) => (a.position.line ?? 0) - (b.position.line ?? 0) || (a.position.col ?? 0) - (b.position.col ?? 0),
  );
  if (all.length <= 1) return all[0] ?? new ConfigError({ file: '?' }, 'unreadable');
  const lines = all.slice(0, shown).map((e) => `  ${errorText(e)}`);
  if (all.length > shown) lines.push(`  and ${all.length - shown} more`);
  return new ConfigError({ file: all[0]!.position.file }, `${all.length} errors:\n${lines.join('\n')}`);
}

function formatPosition(p: ConfigErrorPosition): string {
  const where = [p.file, p.line, p.col].filter((x) => x !== undefined).join(':');
  return p.keyPath ? `${where} ${p.keyPath}:` : `${where}:`;
}

/** An error's message for a notice or a host's reason; an expected one with its hint. */
export function errorText(err: unknown): string {
  if (err instanceof ExpectedError) return err.hint ? `${err.message} (${err.hint})` : err.message;
  return err instanceof Error ? err.message : String(err);
}
