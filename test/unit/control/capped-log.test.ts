import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CappedLog } from '../../../src/control/capped-log.js';

const dirs: string[] = [];
function tmpFile(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'capped-log-'));
  dirs.push(dir);
  return path.join(dir, 'controller.log');
}
afterEach(() => dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

describe('CappedLog (controller.log)', () => {
  it('never lets the file or its one rotation pass the cap, and keeps the newest lines', () => {
    const file = tmpFile();
    const log = new CappedLog(file, 10_000);
    for (let i = 0; i < 5_000; i++) log.write(`line ${i}\n`);
    log.close();
    expect(fs.statSync(file).size).toBeLessThanOrEqual(10_000);
    expect(fs.statSync(`${file}.1`).size).toBeLessThanOrEqual(10_000);
    expect(fs.readFileSync(file, 'utf8').trimEnd().split('\n').at(-1)).toBe('line 4999');
    expect(fs.readdirSync(path.dirname(file)).sort()).toEqual(['controller.log', 'controller.log.1']);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });

  it('cuts an oversized file left from before to its last bytes', () => {
    const file = tmpFile();
    fs.writeFileSync(file, 'x'.repeat(50_000) + 'end\n', { mode: 0o600 });
    const log = new CappedLog(file, 10_000);
    log.write('next\n');
    log.close();
    expect(fs.readFileSync(file, 'utf8')).toBe('next\n');
    const old = fs.readFileSync(`${file}.1`, 'utf8');
    expect(old.length).toBe(10_000);
    expect(old.endsWith('end\n')).toBe(true);
  });

  it('rotates in place, so another O_APPEND descriptor (stderr) writes at the new end', () => {
    const file = tmpFile();
    const stderr = fs.openSync(file, 'a', 0o600);
    const log = new CappedLog(file, 1_000);
    log.write('a'.repeat(900) + '\n');
    log.write('b'.repeat(200) + '\n');
    fs.writeSync(stderr, 'crash\n');
    fs.closeSync(stderr);
    log.close();
    expect(fs.readFileSync(file, 'utf8')).toBe('b'.repeat(200) + '\ncrash\n');
  });
});
