// A few checks for JSON this program wrote itself (the state file), with the first
// problem's path: what zod did here, without its ~14 MB in every command that reads a
// state file and in the long-lived controller. Unknown keys are allowed everywhere.

export type Check = (v: unknown, path: string[]) => string[] | undefined;

/** The first problem as [path..., message], or undefined. */
const fail = (path: string[], message: string): string[] => [...path, message];

export const str: Check = (v, p) => (typeof v === 'string' ? undefined : fail(p, `expected a string, got ${kind(v)}`));
export const nonEmpty: Check = (v, p) =>
  str(v, p) ?? ((v as string).length ? undefined : fail(p, 'expected a non-empty string'));
export const bool: Check = (v, p) =>
  typeof v === 'boolean' ? undefined : fail(p, `expected true or false, got ${kind(v)}`);
export const wholeNumber: Check = (v, p) =>
  typeof v === 'number' && Number.isInteger(v) && v >= 0
    ? undefined
    : fail(p, `expected a whole number ≥ 0, got ${kind(v)}`);
export const positiveInt: Check = (v, p) =>
  typeof v === 'number' && Number.isInteger(v) && v > 0
    ? undefined
    : fail(p, `expected a whole number > 0, got ${kind(v)}`);
export const positive: Check = (v, p) =>
  typeof v === 'number' && v > 0 ? undefined : fail(p, `expected a number > 0, got ${kind(v)}`);
export const nonNegative: Check = (v, p) =>
  typeof v === 'number' && v >= 0 ? undefined : fail(p, `expected a number ≥ 0, got ${kind(v)}`);

export const literal =
  (want: unknown): Check =>
  (v, p) =>
    v === want ? undefined : fail(p, `expected ${JSON.stringify(want)}, got ${kind(v)}`);
export const oneOf =
  (...want: string[]): Check =>
  (v, p) =>
    typeof v === 'string' && want.includes(v)
      ? undefined
      : fail(p, `expected one of ${want.map((w) => JSON.stringify(w)).join(', ')}, got ${kind(v)}`);
export const matches =
  (re: RegExp): Check =>
  (v, p) =>
    str(v, p) ?? (re.test(v as string) ? undefined : fail(p, `expected text matching ${re}`));
export const nullable =
  (c: Check): Check =>
  (v, p) =>
    v === null ? undefined : c(v, p);
/** The key may be absent (undefined). */
export const optional =
  (c: Check): Check =>
  (v, p) =>
    v === undefined ? undefined : c(v, p);

export const arrayOf =
  (c: Check): Check =>
  (v, p) => {
    if (!Array.isArray(v)) return fail(p, `expected an array, got ${kind(v)}`);
    for (const [i, x] of v.entries()) {
      const bad = c(x, [...p, String(i)]);
      if (bad) return bad;
    }
    return undefined;
  };

export const object =
  (fields: Record<string, Check>): Check =>
  (v, p) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return fail(p, `expected an object, got ${kind(v)}`);
    for (const [k, c] of Object.entries(fields)) {
      const bad = c((v as Record<string, unknown>)[k], [...p, k]);
      if (bad) return bad;
    }
    return undefined;
  };

function kind(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : `${typeof v} ${JSON.stringify(v)}`.slice(0, 60);
}
