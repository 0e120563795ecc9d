// One version for the CLI, its controller's hello and the Python package (which reads
// package.json at build time): they are released together.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { VERSION } from '../../src/version.js';

describe('version', () => {
  it("is package.json's, and the CLI's --version", () => {
    const pkg = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    expect(VERSION).toBe(pkg.version);
    const program = fs.readFileSync(new URL('../../src/cli/program.ts', import.meta.url), 'utf8');
    expect(program).toContain(`.version('${VERSION}')`);
  });
});
