// What the code may call, per layer (docs/architecture.md). The import rules (layers, pure
// cores, only ssh/ imports ssh2, ui/ away from ssh/ and dask/, no circles) are
// dependency-cruiser's configuration, .dependency-cruiser.cjs, run by `npm run lint`.
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

const all = files(SRC).map((f) => ({ rel: path.relative(SRC, f), text: fs.readFileSync(f, 'utf8') }));

describe('architecture', () => {
  it('has source files to check', () => {
    expect(all.length).toBeGreaterThan(10);
  });
  it('reads process.* nowhere below app/ (only main.ts, terminal.ts and app/)', () => {
    const below = all.filter((f) => /^(cluster|adaptive|config|dask|ssh|events|ui|control|tls)\//.test(f.rel));
    const bad = below.filter((f) => /\bprocess\.(env|cwd|argv|stdout|stderr|on|exit)/.test(f.text));
    expect(bad.map((f) => f.rel)).toEqual([]);
  });
  it('calls no locale formatting outside ui/ (one toLocaleString loads ICU data: +5.8 MB of RSS)', () => {
    const ICU = /\.toLocale\w*\(|\bIntl\.|\.localeCompare\(/;
    const bad = all.filter((f) => !f.rel.startsWith('ui/') && ICU.test(f.text));
    expect(bad.map((f) => f.rel)).toEqual([]);
  });
});
