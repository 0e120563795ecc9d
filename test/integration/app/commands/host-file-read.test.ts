// What is read as a host file (issue 12, findings 5 and 8): only a regular file of
// bounded size, valid UTF-8; anything else is refused before it is read, exit 2, with
// one line that says what the file is. The risky cases run in a child process with a
// time limit: before the fix they hang (FIFO) or read until memory runs out (/dev/zero).
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadSpec } from '../../../../src/app/commands/cluster-spec.js';
import { ConfigError } from '../../../../src/errors.js';
import { invalidUtf8At } from '../../../../src/config/read/utf8.js';
import { testContext } from '../../../unit/app/context-fixture.js';

const READER = path.resolve(import.meta.dirname, '../../../../src/app/read-host-file.ts');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sshc-hostfile-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/**
 * The reader loadSpec uses (the directory test below shows it does), in a child with
 * 512 MB of heap and a time limit: its exit code and error line.
 */
function loadInChild(file: string): { code: number | null; out: string } {
  const script = `
    const { readHostFileBytes } = await import(${JSON.stringify(READER)});
    try {
      readHostFileBytes(process.argv[1]);
      console.log('read');
    } catch (e) { console.log(e.message); process.exit(e.exitCode ?? 1); }`;
  const r = spawnSync(
    process.execPath,
    ['--max-old-space-size=512', '--import', 'tsx', '--input-type=module', '-e', script, file],
    { encoding: 'utf8', timeout: 30_000 },
  );
  return { code: r.status, out: (r.stdout + r.stderr).trim() };
}

describe('the host file is read only when it is a small regular file', { timeout: 40_000 }, () => {
  it('refuses /dev/zero without reading it', () => {
    expect(loadInChild('/dev/zero')).toEqual({
      code: 2,
      out: '/dev/zero: not a regular file (a character device); expected a YAML host file',
    });
  });
  it('refuses a FIFO without waiting for a writer', () => {
    const fifo = path.join(tmp, 'hosts.fifo');
    execFileSync('mkfifo', [fifo]);
    expect(loadInChild(fifo)).toEqual({
      code: 2,
      out: `${fifo}: not a regular file (a FIFO); expected a YAML host file`,
    });
  });
  it('refuses a file over 1 MiB before parsing it', () => {
    const big = path.join(tmp, 'big.yaml');
    fs.writeFileSync(big, 'hosts:\n' + '  - node000000.example.org\n'.repeat(45_000));
    expect(loadInChild(big)).toEqual({
      code: 2,
      out: `${big}: over 1 MiB, too big for a host file; expected a YAML host file`,
    });
  });
  it('refuses a directory and still reads a normal file', () => {
    const ctx = testContext();
    try {
      expect(() => loadSpec(ctx, tmp)).toThrow(`${tmp}: not a regular file (a directory)`);
      const ok = path.join(tmp, 'ok.yaml');
      fs.writeFileSync(ok, 'hosts: [a, b]\n');
      expect(loadSpec(ctx, ok).workerHosts.map((h) => h.name)).toEqual(['b']);
    } finally {
      ctx.cleanup();
    }
  });
});

describe('the host file must be UTF-8', () => {
  it('refuses a stray byte at its line and column instead of replacing it with U+FFFD', () => {
    const file = path.join(tmp, 'latin1.yaml');
    fs.writeFileSync(
      file,
      Buffer.concat([Buffer.from('hosts:\n  - a\n  - ñode-'), Buffer.from([0xe9]), Buffer.from('\n')]),
    );
    const ctx = testContext();
    try {
      const err = (() => {
        try {
          loadSpec(ctx, file);
        } catch (e) {
          return e;
        }
      })();
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).exitCode).toBe(2);
      expect((err as ConfigError).message).toBe(
        `${file}:3:10: not valid UTF-8 (byte 0xe9); a host file must be UTF-8 text`,
      );
    } finally {
      ctx.cleanup();
    }
  });
  it('finds the first invalid sequence: stray continuation, overlong, surrogate, truncated', () => {
    expect(invalidUtf8At(Buffer.from('héllo €𝄞', 'utf8'))).toBe(-1);
    expect(invalidUtf8At(Uint8Array.from([0x61, 0x80]))).toBe(1);
    expect(invalidUtf8At(Uint8Array.from([0xc0, 0xaf]))).toBe(0);
    expect(invalidUtf8At(Uint8Array.from([0x61, 0xed, 0xa0, 0x80]))).toBe(1);
    expect(invalidUtf8At(Uint8Array.from([0x61, 0x62, 0xe2, 0x82]))).toBe(2);
    expect(invalidUtf8At(Uint8Array.from([0xf4, 0x90, 0x80, 0x80]))).toBe(0);
  });
});
