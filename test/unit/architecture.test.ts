// Dependencies point one way (docs/architecture.md): the pure cores import no I/O, ui/ no ssh or dask,
// and only ssh/ imports ssh2.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../../src');

function files(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? files(p) : /\.tsx?$/.test(e.name) ? [p] : [];
  });
}

/** Every module a file names: `import … from`, `export … from`, `import '…'` and `import('…')`. */
export function imports(text: string): string[] {
  const statics = [...text.matchAll(/^\s*(?:import|export)\b[^'";]*?(?:\bfrom\s*)?['"]([^'"]+)['"]/gm)].map((m) => m[1]!);
  const dynamic = [...text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => m[1]!);
  return [...statics, ...dynamic];
}

const all = files(SRC).map((f) => ({ rel: path.relative(SRC, f), deps: imports(fs.readFileSync(f, 'utf8')) }));

/** A relative import as a path under src/ ("./x.js" from "app/a.ts" → "app/x.ts"). */
function resolve(from: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const target = path.join(path.dirname(from), spec).replace(/\.js$/, '');
  return [`${target}.ts`, `${target}.tsx`, path.join(target, 'index.ts')].find((c) => all.some((f) => f.rel === c));
}

/** Every import circle, each as the files around it (one listing per circle). */
export function circles(graph: Map<string, string[]>): string[][] {
  const found = new Map<string, string[]>();
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (f: string) => {
    state.set(f, 'open');
    stack.push(f);
    for (const g of graph.get(f) ?? []) {
      if (state.get(g) === 'open') {
        const ring = stack.slice(stack.indexOf(g));
        found.set([...ring].sort().join(' '), ring);
      } else if (!state.has(g)) visit(g);
    }
    stack.pop();
    state.set(f, 'done');
  };
  for (const f of graph.keys()) if (!state.has(f)) visit(f);
  return [...found.values()];
}

describe('import reading', () => {
  it('sees import, import type, export from, side-effect and dynamic imports', () => {
    const text = [
      "import fs from 'node:fs';",
      "import type { A } from './a.js';",
      "import {\n  b,\n  c,\n} from './b.js';",
      "export { d } from './d.js';",
      "export * from './e.js';",
      "export type { F } from './f.js';",
      "import './g.js';",
      "const h = await import('./h.js');",
      "export const x = 1; // not an import: 'i.js'",
    ].join('\n');
    expect(imports(text)).toEqual(['node:fs', './a.js', './b.js', './d.js', './e.js', './f.js', './g.js', './h.js']);
  });
  it('finds a circle, a self-import and none where there is none', () => {
    const g = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['d']],
      ['e', ['a']],
    ]);
    expect(circles(g)).toEqual([['a', 'b', 'c'], ['d']]);
    expect(circles(new Map([['a', ['b']], ['b', []]]))).toEqual([]);
  });
});

describe('architecture', () => {
  it('has no import circle in src/ (type imports included)', () => {
    const graph = new Map(all.map((f) => [f.rel, f.deps.map((d) => resolve(f.rel, d)).filter((d): d is string => d !== undefined)]));
    expect(circles(graph).map((c) => c.join(' → '))).toEqual([]);
  });
  it('has source files to check', () => {
    expect(all.length).toBeGreaterThan(10);
  });
  it('keeps cluster/ and adaptive/ pure', () => {
    const bad = all
      .filter((f) => /^(cluster|adaptive)\//.test(f.rel))
      .flatMap((f) => f.deps.filter((d) => /^(node:)?(fs|child_process|net|http)$|^ssh2$|^react$|^ink$|\/(ssh|app|dask)\//.test(d)).map((d) => `${f.rel} → ${d}`));
    expect(bad).toEqual([]);
  });
  it('lets only ssh/ import ssh2', () => {
    expect(all.filter((f) => !f.rel.startsWith('ssh/') && f.deps.includes('ssh2')).map((f) => f.rel)).toEqual([]);
  });
  it('keeps ui/ away from ssh/ and dask/', () => {
    expect(all.filter((f) => f.rel.startsWith('ui/') && f.deps.some((d) => /\/(ssh|dask)\//.test(d))).map((f) => f.rel)).toEqual([]);
  });
  it('reads process.* nowhere below app/ (only main.ts, terminal.ts and app/)', () => {
    const below = all.filter((f) => /^(cluster|adaptive|config|dask|ssh|events|ui|control|tls)\//.test(f.rel));
    const bad = below.filter((f) => /\bprocess\.(env|cwd|argv|stdout|stderr|on|exit)/.test(fs.readFileSync(path.join(SRC, f.rel), 'utf8')));
    expect(bad.map((f) => f.rel)).toEqual([]);
  });
  it('calls no locale formatting outside ui/ (one toLocaleString loads ICU data: +5.8 MB of RSS)', () => {
    const ICU = /\.toLocale\w*\(|\bIntl\.|\.localeCompare\(/;
    const bad = all.filter((f) => !f.rel.startsWith('ui/') && ICU.test(fs.readFileSync(path.join(SRC, f.rel), 'utf8')));
    expect(bad.map((f) => f.rel)).toEqual([]);
  });
});
