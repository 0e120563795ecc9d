// A config error at the place it was written, and how a path written in the host file
// is read: what the readers (read/), the host rules (hosts/) and the later rules share.
import { ConfigError } from '../errors.js';

/** Where something was written, for errors raised after reading (rules, normalize). */
export interface Where {
  file: string;
  line: number;
  col: number;
  keyPath: string;
}

export function configError(w: Where, detail: string, hint?: string): ConfigError {
  const pos = { file: w.file, line: w.line, col: w.col, ...(w.keyPath ? { keyPath: w.keyPath } : {}) };
  return new ConfigError(pos, detail, hint === undefined ? {} : { hint });
}

/** How a path written in the host file is resolved and read. */
export interface LocalFileContext {
  fileDir: string;
  homedir: string;
  /** Throws when the file cannot be read. */
  readFile(path: string): string | Uint8Array;
}
