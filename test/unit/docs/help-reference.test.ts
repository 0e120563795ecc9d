// `--help` and docs/reference.md agree: every long flag a command's --help shows is in
// that command's section of the reference, and every flag the section's table lists is
// one --help shows. The program is the one main.ts builds, imported, not the build.
import fs from 'node:fs';
import type { Command } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../../src/cli/program.js';
import { testContext } from '../app/context-fixture.js';

const reference = fs.readFileSync(new URL('../../../docs/reference.md', import.meta.url), 'utf8');
const ctx = testContext();
afterAll(() => ctx.cleanup());
const commands = buildProgram(ctx, () => undefined).commands.filter((c) => c.name() !== 'help');

/** The text under "## `sshcluster NAME …`" up to the next level-2 heading. */
function section(md: string, name: string): string | undefined {
  const lines = md.split('\n');
  const start = lines.findIndex((l) => new RegExp(`^## \`sshcluster ${name}[\` ]`).test(l));
  if (start < 0) return undefined;
  const end = lines.findIndex((l, i) => i > start && /^## /.test(l));
  return lines.slice(start, end < 0 ? undefined : end).join('\n');
}

/** Long flags --help shows for a command (its own --help aside). */
function helpFlags(cmd: Command): string[] {
  return cmd
    .createHelp()
    .visibleOptions(cmd)
    .map((o) => o.long)
    .filter((l): l is string => l !== undefined && l !== '--help');
}

/** Flags named in the first column of the section's tables. */
function tableFlags(text: string): string[] {
  const rows = text.split('\n').filter((l) => l.startsWith('| `-'));
  return rows.flatMap((r) => [...r.split(' | ')[0]!.matchAll(/`(--[a-z][a-z-]*)/g)].map((m) => m[1]!));
}

describe('--help and docs/reference.md', () => {
  it('covers every command of the program', () => {
    expect(commands.length).toBeGreaterThanOrEqual(16);
    expect(commands.map((c) => c.name()).filter((n) => section(reference, n) === undefined)).toEqual([]);
  });

  it.each(commands.map((c) => [c.name(), c] as const))(
    '%s: every long flag of --help is in its section',
    (name, cmd) => {
      const text = section(reference, name) ?? '';
      const flags = helpFlags(cmd);
      expect(flags.length).toBeGreaterThan(0);
      expect(flags.filter((f) => !new RegExp(`${f}(?![\\w-])`).test(text))).toEqual([]);
    },
  );

  it.each(commands.map((c) => [c.name(), c] as const))(
    '%s: every flag its section lists is one --help shows',
    (name, cmd) => {
      const shown = new Set(helpFlags(cmd));
      expect(tableFlags(section(reference, name) ?? '').filter((f) => !shown.has(f))).toEqual([]);
    },
  );

  it('a flag missing from a section is reported', () => {
    const up = commands.find((c) => c.name() === 'up')!;
    const without = section(reference, 'up')!.replace(/--ready-timeout/g, '--ready');
    expect(helpFlags(up).filter((f) => !new RegExp(`${f}(?![\\w-])`).test(without))).toEqual(['--ready-timeout']);
  });
});
