// Dependencies point one way (STYLE.md): the pure cores import no I/O, ui/ no ssh or dask,
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

function imports(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  return [...text.matchAll(/^\s*import[^'"]*['"]([^'"]+)['"]/gm)].map((m) => m[1]!);
}

const all = files(SRC).map((f) => ({ rel: path.relative(SRC, f), deps: imports(f) }));

describe('architecture', () => {
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
});
