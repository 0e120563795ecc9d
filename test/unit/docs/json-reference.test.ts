// docs/reference.md names every event kind `up --json` writes and every field of the
// `status --json` document, read from the types that define them (source text only).
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (rel: string): string => fs.readFileSync(new URL(`../../../${rel}`, import.meta.url), 'utf8');
const reference = read('docs/reference.md');

/** The text under a level-3 heading up to the next heading of level 2 or 3. */
function subsection(md: string, heading: string): string {
  const start = md.indexOf(`\n### ${heading}\n`);
  if (start < 0) return '';
  const rest = md.slice(start + 1);
  const end = rest.slice(1).search(/\n#{2,3} /);
  return end < 0 ? rest : rest.slice(0, end + 1);
}

/** Field names declared at the top level of `export interface NAME { … }`. */
function fields(source: string, name: string): string[] {
  const body = new RegExp(`export interface ${name} \\{\\n([\\s\\S]*?)\\n\\}`).exec(source)?.[1] ?? '';
  return [...body.matchAll(/^ {2}([a-zA-Z]+)\??:/gm)].map((m) => m[1]!);
}

/** Names the text does not show as `name` (or `name[]`, for a list). */
const undocumented = (names: string[], text: string): string[] =>
  names.filter((n) => !text.includes(`\`${n}\``) && !text.includes(`\`${n}[]\``));

describe('docs/reference.md and the JSON the commands write', () => {
  it('names every event kind of up --json', () => {
    const kinds = [...read('src/events/types.ts').matchAll(/kind: '([a-z-]+)'/g)].map((m) => m[1]!);
    expect(kinds.length).toBeGreaterThanOrEqual(9);
    expect(undocumented([...new Set(kinds)], subsection(reference, '`up --json` events'))).toEqual([]);
  });

  it.each(['StatusJson', 'WorkerStatus', 'TaskFigures', 'AdaptiveStatus', 'ClusterStatusEvent'])(
    "names every field of status --json's %s",
    (name) => {
      const names = fields(read('src/control/status-document.ts'), name);
      expect(names.length).toBeGreaterThan(2);
      expect(undocumented(names, subsection(reference, '`status --json`'))).toEqual([]);
    },
  );

  it.each(['WorkerStatus', 'TaskFigures', 'AdaptiveStatus'])(
    "says each value of %s once: no field beside its own XBytes (the text form is the text rendering's)",
    (name) => {
      const names = fields(read('src/control/status-document.ts'), name);
      expect(names.filter((n) => names.includes(`${n}Bytes`))).toEqual([]);
    },
  );

  it('reports a field that is missing', () => {
    expect(undocumented(['name', 'noSuchField'], subsection(reference, '`status --json`'))).toEqual(['noSuchField']);
  });
});
