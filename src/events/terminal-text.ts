// Remote output is untrusted: a worker printing `ESC ] 0 ; … BEL` or `ESC [ 2 J` would
// retitle or clear the user's terminal, and some terminals act on worse. Every place
// that shows text to a person passes it through here, so C0 and C1 control characters
// (other than tab) appear as visible escapes like `\x1b`. NDJSON output is escaped by
// JSON itself; jsonText adds the C1 range and DEL, which JSON.stringify leaves raw.

// C0 except tab, DEL, C1. The newline is a control character in one line of text.
const CONTROL = /[\x00-\x08\x0a-\x1f\x7f-\x9f]/g;
const CONTROL_BUT_NEWLINE = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;
const ANY_CONTROL = /[\x00-\x08\x0a-\x1f\x7f-\x9f]/;
const JSON_RAW = /[\x7f-\x9f]/g;

function hex(c: string): string {
  return `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`;
}

/** One line of text for a terminal: every control character but tab escaped. */
export function safeLine(text: string): string {
  return ANY_CONTROL.test(text) ? text.replace(CONTROL, hex) : text;
}

/** Text of several lines: newlines kept (a CRLF counts as one), everything else escaped. */
export function safeText(text: string): string {
  return ANY_CONTROL.test(text) ? text.replace(/\r\n/g, '\n').replace(CONTROL_BUT_NEWLINE, hex) : text;
}

/**
 * Every string in a JSON-like value through safeLine (events, status documents); the
 * value itself when nothing needed escaping, so the hot path allocates little.
 */
export function safeDeep<T>(value: T): T {
  if (typeof value === 'string') return safeLine(value) as T;
  if (value === null || typeof value !== 'object') return value;
  let changed = false;
  const keep = <V>(v: V): V => {
    const s = safeDeep(v);
    if (s !== v) changed = true;
    return s;
  };
  const out = Array.isArray(value)
    ? value.map(keep)
    : Object.fromEntries(Object.entries(value).map(([k, v]) => [k, keep(v)]));
  return (changed ? out : value) as T;
}

/** JSON.stringify, with DEL and C1 written as \u escapes too (still valid JSON). */
export function jsonText(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(
    JSON_RAW,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
