// bin/sshcluster runs the bundle from V8's code cache (issue 15): written once per
// command and build, used as it is after that, and never the reason a command fails.
// Whether V8 took the file shows in whether it is written again: only a missing or
// refused cache is.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const BIN = path.resolve(import.meta.dirname, '../../../bin/sshcluster');
const VERSION = (
  JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../../package.json'), 'utf8')) as { version: string }
).version;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sshc-cache-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function run(cacheHome: string, ...args: string[]): string {
  const env: NodeJS.ProcessEnv = { ...process.env, XDG_CACHE_HOME: cacheHome, XDG_STATE_HOME: path.join(tmp, 'state') };
  delete env.NODE_V8_COVERAGE;
  const r = spawnSync(process.execPath, [BIN, ...args], { env, encoding: 'utf8' });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return r.stdout;
}

/** The cache's files, each with what changes when it is written again. */
function files(cacheHome: string): Map<string, string> {
  const dir = path.join(cacheHome, 'sshcluster', 'v8');
  return new Map(
    fs.readdirSync(dir).map((n) => {
      const st = fs.statSync(path.join(dir, n), { bigint: true });
      return [n, `${st.ino} ${st.mtimeNs} ${st.size}`];
    }),
  );
}

describe('the code cache', () => {
  it('is written by the first run of a command, private, and used as it is after that', () => {
    const home = path.join(tmp, 'a');
    expect(run(home, '--version').trim()).toBe(VERSION);
    const first = files(home);
    expect(first.size).toBe(1);
    const [name] = [...first.keys()];
    expect(name).toMatch(/^--[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}\.bin$/);
    const dir = path.join(home, 'sshcluster', 'v8');
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    expect(fs.statSync(path.join(dir, name!)).mode & 0o777).toBe(0o600);
    expect(Number(first.get(name!)!.split(' ')[2])).toBeGreaterThan(10_000);

    expect(run(home, '--version').trim()).toBe(VERSION);
    expect(files(home)).toEqual(first);

    // Another command has its own.
    run(home, 'list');
    expect([...files(home).keys()].sort()).toEqual(
      [name, expect.stringMatching(/^list-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}\.bin$/)].sort(),
    );
  });

  it('a damaged file is refused by V8 and written again; the command runs as without it', () => {
    const home = path.join(tmp, 'b');
    run(home, '--version');
    const [name] = [...files(home).keys()];
    const file = path.join(home, 'sshcluster', 'v8', name!);
    fs.writeFileSync(file, Buffer.alloc(4096, 7));
    expect(run(home, '--version').trim()).toBe(VERSION);
    expect(fs.readFileSync(file).equals(Buffer.alloc(4096, 7))).toBe(false);
    expect(fs.statSync(file).size).toBeGreaterThan(10_000);
  });

  it("a write removes this install's other builds of the command and any file a month old, nothing else", () => {
    const home = path.join(tmp, 'c');
    const dir = path.join(home, 'sshcluster', 'v8');
    run(home, '--version');
    const [mine] = [...files(home).keys()];
    const [, inst, build, runtime] = /^--([0-9a-f]{8})-([0-9a-f]{8})-([0-9a-f]{8})\.bin$/.exec(mine!)!;
    const keep = [
      `--ffffffff-${build}-${runtime}.bin`, // another install
      `list-${inst}-00000000-00000000.bin`, // another command
      `--${inst}-${build}-ffffffff.bin`, // another Node or flags
    ];
    const go = [`--${inst}-00000000-${runtime}.bin`, 'list-eeeeeeee-00000000-00000000.bin'];
    for (const n of [...keep, ...go]) fs.writeFileSync(path.join(dir, n), 'another');
    // Another install's, unused for a month.
    const monthOld = new Date(Date.now() - 31 * 86_400_000);
    fs.utimesSync(path.join(dir, go[1]!), monthOld, monthOld);
    fs.rmSync(path.join(dir, mine!));
    run(home, '--version');
    expect([...files(home).keys()].sort()).toEqual([mine, ...keep].sort());
  });

  it('a file others can write, or a link, is not run: a file of its own replaces it', () => {
    const home = path.join(tmp, 'd');
    run(home, '--version');
    const [name] = [...files(home).keys()];
    const file = path.join(home, 'sshcluster', 'v8', name!);
    const good = path.join(tmp, 'good.bin');
    fs.copyFileSync(file, good);
    fs.chmodSync(file, 0o666);
    const planted = files(home).get(name!);
    run(home, '--version');
    expect(files(home).get(name!)).not.toBe(planted);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);

    fs.rmSync(file);
    fs.symlinkSync(good, file);
    run(home, '--version');
    expect(fs.lstatSync(file).isFile()).toBe(true);
  });

  it('a cache that cannot be written changes nothing', () => {
    const notADir = path.join(tmp, 'file');
    fs.writeFileSync(notADir, '');
    expect(run(notADir, '--version').trim()).toBe(VERSION);
    expect(fs.readFileSync(notADir, 'utf8')).toBe('');
  });
});
