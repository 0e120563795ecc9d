// The commands we send to a host, run for real under sh and bash as sshd would run them
// (`$SHELL -c COMMAND`, then the input on stdin): env values arrive literally and never
// appear on any command line; the launcher is installed once (0600 in a 0700 directory)
// and ps shows `python …/sshcluster-launcher NAME …`; a planted directory makes it run
// inline instead of writing there.
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  buildKeeperCommand,
  buildRemoteCommand,
  envInput,
  shellScript,
  viaSh,
  type RemoteInvocation,
} from '../../../src/dask/remote-command.js';
import { remoteProgram } from '../../../src/dask/remote-programs.js';
import { killStarted, runAsSshd, until, type ShellRun } from './remote/launcher-harness.js';

const PYTHON = '/usr/bin/python3';
const uid = os.userInfo().uid;
// Quotes, $(…), backslashes, a newline, a line that looks like the block's end: all literal.
const SECRET = `s3cr3t-'q' "d" $(touch /tmp/pwned) \`id\` \\n back\\slash\nline2\n\nexport X=1 ;`;
let tmp = '';
const procs: ChildProcessWithoutNullStreams[] = [];
afterEach(() => {
  for (const p of procs.splice(0)) p.kill('SIGKILL');
  killStarted();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

type Run = ShellRun;

/** Runs an invocation as sshd would, with this test's TMPDIR. */
function run(shell: string, inv: RemoteInvocation, env: Record<string, string> = {}): Run {
  const r = runAsSshd(shell, inv, { PATH: '/usr/bin:/bin', HOME: '/tmp', TMPDIR: tmp, ...env });
  procs.push(r.proc);
  return r;
}

const cmdline = (pid: number): string[] => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(0, -1);
  } catch {
    return [];
  }
};

const SHOW =
  'import json, os, sys; print(json.dumps([os.environ["S"], os.environ["SSHCLUSTER_ID"], os.environ["Y"], sys.argv[1:]]), flush=True); sys.stdin.read()';
const SETUP = [
  'export Y=from-setup',
  'if true; then\n  export Z=1\nfi',
  'read -r eaten || echo setup-got-eof >&2',
  '# a comment',
];

function worker(setup: string[] = SETUP, show = SHOW) {
  return buildRemoteCommand({
    setup,
    env: { S: SECRET },
    name: 'w-0',
    argv: [PYTHON, '-c', show, "it's", 'two words', '$HOME'],
    clusterId: 'lab-1234',
    graceS: 2,
  });
}
/** Stays until the launcher stops it (stdin EOF: exit 143), so ps can be read meanwhile. */
const STAYING = `${SHOW}; import time; time.sleep(60)`;

/** Every command line on this machine holding `text`, but our own test process's. */
const cmdlinesWith = (text: string): string[] =>
  readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d) && Number(d) !== process.pid)
    .map((d) => cmdline(Number(d)).join(' '))
    .filter((c) => c.includes(text));

async function firstLines(r: Run, n: number): Promise<string[]> {
  expect(await until(() => r.out().split('\n').length > n, 10_000), r.err()).toBe(true);
  return r.out().split('\n').slice(0, n);
}

describe('the remote command of a process', () => {
  it('has no env value in its command, only in its input', () => {
    const inv = worker();
    expect(inv.command).not.toContain('s3cr3t');
    expect(inv.input).toContain('s3cr3t');
    const keeper = buildKeeperCommand({
      setup: [],
      env: { S: SECRET },
      python: PYTHON,
      clusterId: 'lab-1234',
      name: 'w-0',
      pid: 42,
    });
    expect(keeper.command).not.toContain('s3cr3t');
    expect(keeper.command).not.toContain('lab-1234');
    expect(keeper.input).toContain('s3cr3t');
    expect(keeper.command).toMatch(/ sshcluster-keeper \d+ [0-9a-f]{16} w-0 42$/);
    expect(envInput({ A: "x\ny'z" })).toBe(`export A='x'"$__sshc_nl"'y'\\''z'\n\n`);
    expect(() => envInput({ A: 'a\0b' })).toThrow(/NUL/);
  });

  it('runs setup, then the env from stdin, then the launcher, under sh, bash and via viaSh; values arrive literally', async () => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'sshc-remote-'));
    const inv = worker();
    for (const [shell, command] of [
      ['sh', inv.command],
      ['bash', inv.command],
      ['bash', viaSh(inv.command)],
    ] as const) {
      const r = run(shell, { ...inv, command });
      const [pidLine, shown] = await firstLines(r, 2);
      expect(pidLine).toMatch(/^__SSHCLUSTER_PID__ \d+$/);
      expect(JSON.parse(shown!)).toEqual([SECRET, 'lab-1234', 'from-setup', ["it's", 'two words', '$HOME']]);
      // Setup reads /dev/null: a setup command that reads stdin cannot eat the env block.
      expect(r.err()).toBe('setup-got-eof\n');
      // The child's exit ends the launcher (closing stdin first would stop the child).
      expect(await r.exit).toBe(0);
    }
  });

  it('shows ps a short line, puts no env value on any command line, and installs the launcher 0600 in a 0700 directory', async () => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'sshc-remote-'));
    const { key } = remoteProgram('launcher');
    const installed = path.join(tmp, `sshcluster-${uid}`, key, 'sshcluster-launcher');
    // A slow setup keeps the login shell (and its command line) around for a while.
    const r = run('bash', worker(['sleep 0.5', ...SETUP], STAYING));
    const seen = new Set<string>();
    while (r.out().split('\n').length < 3) {
      cmdlinesWith('s3cr3t').forEach((c) => seen.add(c));
      await new Promise((res) => setTimeout(res, 5));
    }
    expect([...seen]).toEqual([]);
    expect(cmdline(r.proc.pid!)).toEqual([
      PYTHON,
      '-S',
      installed,
      'w-0',
      PYTHON,
      '-c',
      STAYING,
      "it's",
      'two words',
      '$HOME',
    ]);
    expect(statSync(installed).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(installed)).mode & 0o777).toBe(0o700);
    expect(statSync(path.dirname(path.dirname(installed))).mode & 0o777).toBe(0o700);
    expect(readFileSync(installed, 'utf8')).toBe(remoteProgram('launcher').source);
    // The next process finds it in place: same file, not written again.
    const ino = statSync(installed).ino;
    const again = run('sh', worker());
    await firstLines(again, 2);
    expect(statSync(installed).ino).toBe(ino);
    expect(readdirSync(path.dirname(installed))).toEqual(['sshcluster-launcher']);
    expect(await again.exit).toBe(0);
    r.proc.stdin.end();
    expect(await r.exit).toBe(143);
  });

  it('execs the installed launcher straight from the shell on a later launch, reading past its source', async () => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'sshc-remote-'));
    const { key, source } = remoteProgram('launcher');
    const installed = path.join(tmp, `sshcluster-${uid}`, key, 'sshcluster-launcher');
    const first = run('sh', worker());
    await firstLines(first, 2);
    expect(await first.exit).toBe(0);
    // A mark boot.py would not leave (it puts back what differs from the source sent).
    writeFileSync(installed, `import sys\nsys.stderr.write("from the installed file\\n")\n${source}`);
    for (const shell of ['sh', 'bash']) {
      const r = run(shell, worker(SETUP, STAYING));
      const [pidLine, shown] = await firstLines(r, 2);
      expect(pidLine).toMatch(/^__SSHCLUSTER_PID__ \d+$/);
      // The env, the argv and the child's stdin are as through boot.py: the source was read past.
      expect(JSON.parse(shown!)).toEqual([SECRET, 'lab-1234', 'from-setup', ["it's", 'two words', '$HOME']]);
      expect(r.err()).toBe('setup-got-eof\nfrom the installed file\n');
      expect(cmdline(r.proc.pid!)).toEqual([
        PYTHON,
        '-S',
        installed,
        'w-0',
        PYTHON,
        '-c',
        STAYING,
        "it's",
        'two words',
        '$HOME',
      ]);
      // Not passed on to the process (the launcher's own /proc environ is its start's).
      const child = Number(pidLine!.split(' ')[1]);
      expect(readFileSync(`/proc/${child}/environ`, 'utf8')).toContain('SSHCLUSTER_ID=lab-1234');
      expect(readFileSync(`/proc/${child}/environ`, 'utf8')).not.toContain('SSHCLUSTER_SOURCE_SIZE');
      r.proc.stdin.end();
      expect(await r.exit).toBe(143);
    }
  });

  it('goes through boot.py when a level of the installed path is a symlink', async () => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'sshc-remote-'));
    const { key, source } = remoteProgram('launcher');
    const elsewhere = path.join(tmp, 'elsewhere');
    mkdirSync(elsewhere, { mode: 0o700 });
    writeFileSync(
      path.join(elsewhere, 'sshcluster-launcher'),
      `import sys\nsys.stderr.write("from the installed file\\n")\n${source}`,
      { mode: 0o600 },
    );
    mkdirSync(path.join(tmp, `sshcluster-${uid}`), { mode: 0o700 });
    symlinkSync(elsewhere, path.join(tmp, `sshcluster-${uid}`, key));
    const r = run('sh', worker(SETUP, STAYING));
    const [pidLine, shown] = await firstLines(r, 2);
    expect(pidLine).toMatch(/^__SSHCLUSTER_PID__ \d+$/);
    expect(JSON.parse(shown!)[0]).toBe(SECRET);
    expect(r.err()).not.toContain('from the installed file');
    expect(r.err()).toMatch(
      /sshcluster-launcher runs inline, as it could not be installed: not our directory: .* \(a symlink or not a directory\)\n/,
    );
    r.proc.stdin.end();
    expect(await r.exit).toBe(143);
  });

  it('runs the launcher inline, writing nothing there, when its directory was planted', async () => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'sshc-remote-'));
    const theirs = path.join(tmp, 'theirs');
    mkdirSync(theirs, { mode: 0o777 });
    chmodSync(theirs, 0o777);
    symlinkSync(theirs, path.join(tmp, `sshcluster-${uid}`));
    const r = run('sh', worker(SETUP, STAYING));
    const [pidLine, shown] = await firstLines(r, 2);
    expect(pidLine).toMatch(/^__SSHCLUSTER_PID__ \d+$/);
    expect(JSON.parse(shown!)[0]).toBe(SECRET);
    expect(r.err()).toMatch(
      /\nsshcluster: sshcluster-launcher runs inline, as it could not be installed: not our directory: .*sshcluster-\d+ \(a symlink or not a directory\)\n/,
    );
    expect(readdirSync(theirs)).toEqual([]);
    // ps shows the boot line and the program's name, never its source.
    expect(cmdline(r.proc.pid!).slice(4, 8)).toEqual([
      'sshcluster-launcher',
      String(Buffer.byteLength(remoteProgram('launcher').source)),
      remoteProgram('launcher').key,
      'w-0',
    ]);
    r.proc.stdin.end();
    expect(await r.exit).toBe(143);
  });
});

describe('a host script (exec, check)', () => {
  it('gets the env from stdin, literally, with stdin closed after it', async () => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'sshc-remote-'));
    const r = run('sh', {
      command: shellScript(['X=from-setup'], 'printf "%s|%s|" "$S" "$X"; cat; echo end'),
      input: envInput({ S: SECRET }),
    });
    r.proc.stdin.end();
    expect(await r.exit).toBe(0);
    expect(r.out()).toBe(`${SECRET}|from-setup|end\n`);
  });
});
