// A position-aware view of one YAML node. Readers walk the document through cursors
// so that every error can name the file, line, column and key path of the node at
// fault, which a plain JS object from doc.toJS() has forgotten.
import { isAlias, isMap, isScalar, isSeq, type Document, type LineCounter, type Node } from 'yaml';
import { ConfigError } from '../../errors.js';
import { configError, type Where } from '../config-error.js';
import { unknownKeyHint } from './did-you-mean.js';

export interface Source {
  file: string;
  doc: Document;
  lines: LineCounter;
  /** Set while reading: errors a reader could step over (recover), reported all at once. */
  errors?: ConfigError[];
  /**
   * Where (line:col) each mapping with an unknown key starts: a key it then lacks is
   * likely the one misspelt, so an error there says nothing the unknown key does not.
   */
  unknownKeysIn?: Map<string, ConfigError[]>;
}

export function positionKey(p: { line?: number; col?: number }): string {
  return `${p.line ?? 0}:${p.col ?? 0}`;
}

export interface EntryOptions {
  /** Sections whose keys may be misplaced here, for the unknown-key hint. */
  sections?: Record<string, readonly string[]>;
  /** For free-form maps (env): what a key must look like. */
  keyPattern?: { re: RegExp; expected: string };
}

export class Cursor {
  constructor(
    readonly src: Source,
    /** undefined/null scalar: the key is absent or has no value. */
    readonly node: Node | undefined,
    readonly path: string,
    /** Offset used when the node itself has no range (absent keys). */
    private readonly offset = 0,
  ) {}

  get present(): boolean {
    return this.node !== undefined && !(isScalar(this.node) && this.node.value === null);
  }

  where(offset = this.node?.range?.[0] ?? this.offset): Where {
    const { line, col } = this.src.lines.linePos(offset);
    return { file: this.src.file, line, col, keyPath: this.path };
  }

  fail(detail: string, hint?: string): never {
    throw configError(this.where(), detail, hint);
  }

  /** The plain value of a scalar, or fail. */
  scalar(expected: string): unknown {
    if (!isScalar(this.node)) this.wrong(expected);
    return this.node.value;
  }

  /** Fails with what was expected and what is there: `expected a whole number >= 1, got "two"`. */
  wrong(expected: string): never {
    return this.fail(`${expected}, got ${this.shown()}`);
  }

  private shown(): string {
    const n = this.node;
    if (isSeq(n)) return 'a list';
    if (isMap(n)) return 'a mapping';
    const v = isScalar(n) ? n.value : undefined;
    if (v === null || v === undefined) return 'nothing';
    if (typeof v !== 'string') return String(v);
    return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);
  }

  string(expected = 'expected a string'): string {
    const v = this.scalar(expected);
    if (typeof v !== 'string') this.wrong(expected);
    if (v === '') this.fail('expected a non-empty string');
    return v;
  }

  /** Strings, numbers and booleans all become text (env values, resource names). */
  text(expected = 'expected a string'): string {
    const v = this.scalar(expected);
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return String(v);
    return this.wrong(expected);
  }

  number(expected = 'expected a number'): number {
    const v = this.scalar(expected);
    if (typeof v !== 'number' || Number.isNaN(v)) this.wrong(expected);
    return v;
  }

  int(min: number, max = Number.MAX_SAFE_INTEGER): number {
    const expected =
      max === Number.MAX_SAFE_INTEGER
        ? `expected a whole number >= ${min}`
        : `expected a whole number from ${min} to ${max}`;
    const v = this.number(expected);
    if (!Number.isInteger(v) || v < min || v > max) this.wrong(expected);
    return v;
  }

  /** YAML 1.2 reads `yes`/`no` as strings; accept them since YAML 1.1 habits are common. */
  bool(): boolean {
    const v = this.scalar('expected true or false');
    if (typeof v === 'boolean') return v;
    if (v === 'yes' || v === 'no') return v === 'yes';
    return this.wrong('expected true or false');
  }

  /** Runs a parser that throws plain Errors, turning them into positioned ConfigErrors. */
  parse<T>(fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      if (err instanceof ConfigError) throw err;
      return this.fail(err instanceof Error ? err.message : String(err));
    }
  }

  items(expected = 'expected a list'): Cursor[] {
    const node = this.node;
    if (!isSeq(node)) this.wrong(expected);
    return node.items.map((item, i) => this.child(item as Node, `${this.path}[${i}]`, node.range?.[0]));
  }

  /** Key/value cursors of a mapping; unknown keys fail at the key with a hint. */
  entries(valid: readonly string[] | 'any', opts: EntryOptions = {}): Map<string, Cursor> {
    const node = this.node;
    if (!isMap(node)) return this.wrong('expected a mapping (key: value)');
    const out = new Map<string, Cursor>();
    for (const pair of node.items) {
      const keyCursor = this.child(pair.key as Node, this.path, node.range?.[0]);
      const key = keyCursor.text('expected a key name');
      const path = this.path ? `${this.path}.${key}` : key;
      const at = (detail: string, hint?: string) => configError({ ...keyCursor.where(), keyPath: path }, detail, hint);
      if (valid !== 'any' && !valid.includes(key)) {
        const err = at(`unknown key "${key}"`, unknownKeyHint(key, valid, opts.sections));
        this.keep(err);
        const here = positionKey(this.where());
        this.src.unknownKeysIn?.set(here, [...(this.src.unknownKeysIn.get(here) ?? []), err]);
        continue;
      }
      if (opts.keyPattern && !opts.keyPattern.re.test(key)) {
        this.keep(at(opts.keyPattern.expected));
        continue;
      }
      const keyEnd = (pair.key as Node | null)?.range?.[1];
      out.set(key, this.child(pair.value as Node | null, path, keyEnd));
    }
    return out;
  }

  isMap(): boolean {
    return isMap(this.node);
  }

  isSeq(): boolean {
    return isSeq(this.node);
  }

  /** An error to report with the others when the source collects them; else thrown. */
  private keep(err: ConfigError): void {
    if (!this.src.errors) throw err;
    this.src.errors.push(err);
  }

  private child(node: Node | null, path: string, offset = this.offset): Cursor {
    const resolved = isAlias(node) ? (node.resolve(this.src.doc) as Node | undefined) : (node ?? undefined);
    return new Cursor(this.src, resolved, path, offset);
  }
}

/**
 * read's value; when the source collects errors, one it throws is kept and undefined
 * returned, so reading goes on with the next key (whose errors are reported too).
 */
export function recover<T>(c: Cursor, read: () => T): T | undefined {
  try {
    return read();
  } catch (err) {
    if (!(err instanceof ConfigError) || !c.src.errors) throw err;
    c.src.errors.push(err);
    return undefined;
  }
}
