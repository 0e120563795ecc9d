// The cluster's files on a host, run for real under sh as sshd would run the commands
// (`sh -c COMMAND`, the input on stdin): the launcher writes the files a process is
// given (files.py) 0600 into a 0700 directory under the host's TMPDIR before it starts
// the process, and puts that directory into the argv; their content is never on a
// command line. cluster-files.py's `remove` leaves nothing. A planted directory is
// refused without writing: the process does not start, or, for optional files, starts
// without the arguments that name them.
import { spawnSync } from 'node:child_process';
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  buildClusterFilesCommand,
  buildRemoteCommand,
  CLUSTER_FILES_DIR,
} from '../../../../src/dask/remote-command.js';
import { CLUSTER_SCRATCH_DIR } from '../../../../src/dask/dask-env.js';
import type { NamedFile } from '../../../../src/tls/tls-files.js';
import { killStarted, runAsSshd } from './launcher-harness.js';

const PYTHON = '/usr/bin/python3';
const uid = os.userInfo().uid;
const KEY = '-----BEGIN PRIVATE KEY-----\nnot-a-real-key\n-----END PRIVATE KEY-----\n';
let tmp = '';
beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'sshc-files-'));
});
afterEach(() => {
  killStarted();
  rmSync(tmp, { recursive: true, force: true });
});

// Prints its arguments, and the content of each that is a file.
const SHOW =
  'import json, os, sys; print(json.dumps([[a, open(a).read() if os.path.isfile(a) else None] for a in sys.argv[1:]]), flush=True)';

/** A process given `files`, its argv naming ca.pem among them; resolves once the launcher exits (stdin kept open until then). */
async function launch(
  files: NamedFile[],
  optional = false,
): Promise<{ code: number | null; args?: [string, string | null][]; stderr: string }> {
  const inv = buildRemoteCommand({
    setup: [],
    env: { TMPDIR: tmp },
    name: 'scheduler',
    clusterId: 'c0ffee',
    argv: [PYTHON, '-c', SHOW, '--flag', '--preload', `${CLUSTER_FILES_DIR}/ca.pem`, 'last'],
    files: { files, optional },
  });
  expect(inv.command).not.toContain('not-a-real-key');
  const r = runAsSshd('sh', inv, { PATH: '/usr/bin:/bin', HOME: tmp });
  const code = await r.exit;
  const shown = r
    .out()
    .split('\n')
    .find((l) => l.startsWith('['));
  return { code, args: shown ? JSON.parse(shown) : undefined, stderr: r.err() };
}

function remove(env: Record<string, string> = {}) {
  const inv = buildClusterFilesCommand({ setup: [], env: { TMPDIR: tmp }, python: PYTHON, clusterId: 'c0ffee' });
  const r = spawnSync('sh', ['-c', inv.command], {
    input: inv.input,
    encoding: 'utf8',
    env: { PATH: '/usr/bin:/bin', HOME: tmp, ...env },
  });
  return { code: r.status, stderr: r.stderr };
}

const mode = (p: string) => lstatSync(p).mode & 0o777;
const filesDir = () => path.join(tmp, `sshcluster-${uid}`, 'c0ffee', 'files');

describe("the cluster's files", () => {
  it('are written 0600 into a 0700 dir that the argv then names, replaced when they change, and removed', async () => {
    const r = await launch([
      { name: 'ca.pem', content: 'CA' },
      { name: 'worker-key.pem', content: KEY },
    ]);
    expect([r.code, r.stderr]).toEqual([0, '']);
    const dir = filesDir();
    expect(r.args).toEqual([
      ['--flag', null],
      ['--preload', null],
      [path.join(dir, 'ca.pem'), 'CA'],
      ['last', null],
    ]);
    expect(readdirSync(dir).sort()).toEqual(['ca.pem', 'worker-key.pem']);
    expect(readFileSync(path.join(dir, 'worker-key.pem'), 'utf8')).toBe(KEY);
    expect([mode(dir), mode(path.dirname(dir)), mode(path.join(dir, 'worker-key.pem'))]).toEqual([0o700, 0o700, 0o600]);
    // The next process there: the same files (left as they are), or a changed one (replaced).
    expect((await launch([{ name: 'ca.pem', content: 'CA' }])).args?.[2]).toEqual([path.join(dir, 'ca.pem'), 'CA']);
    expect((await launch([{ name: 'ca.pem', content: 'CA2' }])).args?.[2]).toEqual([path.join(dir, 'ca.pem'), 'CA2']);
    mkdirSync(path.join(dir, '__pycache__')); // a Python that imported a file from here
    expect(remove()).toEqual({ code: 0, stderr: '' });
    expect(readdirSync(path.join(tmp, `sshcluster-${uid}`)).filter((n) => n === 'c0ffee')).toEqual([]);
    // Nothing there any more: removing again is fine.
    expect(remove().code).toBe(0);
  });

  it("go with their __pycache__ without importing shutil (~8 ms of CPU in every host's last look)", async () => {
    expect((await launch([{ name: 'ca.pem', content: 'CA' }])).code).toBe(0);
    const cache = path.join(filesDir(), '__pycache__');
    mkdirSync(cache); // what a Python that imported a file from here left
    writeFileSync(path.join(cache, 'scheduler_wait.cpython-311.pyc'), 'pyc');
    // Python's own account of each import, on stderr.
    const r = remove({ PYTHONPROFILEIMPORTTIME: '1' });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/import time:.*\| +posix$/m); // the account is there
    expect(r.stderr).not.toMatch(/\| +shutil$/m);
    expect(readdirSync(path.join(tmp, `sshcluster-${uid}`)).filter((n) => n === 'c0ffee')).toEqual([]);
  });

  it('are not written through a planted directory (a symlink): the process does not start', async () => {
    const elsewhere = path.join(tmp, 'elsewhere');
    mkdirSync(elsewhere);
    mkdirSync(path.join(tmp, `sshcluster-${uid}`), { mode: 0o700 });
    symlinkSync(elsewhere, path.join(tmp, `sshcluster-${uid}`, 'c0ffee'));
    const r = await launch([{ name: 'ca.pem', content: 'CA' }]);
    expect(r.code).toBe(127);
    expect(r.args).toBeUndefined();
    expect(r.stderr).toMatch(
      /sshcluster-launcher: cannot write the cluster's files: not our directory: .*c0ffee \(a symlink or not a directory\)/,
    );
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it('that are optional: without them the process starts without the arguments that name them', async () => {
    const elsewhere = path.join(tmp, 'elsewhere');
    mkdirSync(elsewhere);
    mkdirSync(path.join(tmp, `sshcluster-${uid}`), { mode: 0o700 });
    symlinkSync(elsewhere, path.join(tmp, `sshcluster-${uid}`, 'c0ffee'));
    const r = await launch([{ name: 'ca.pem', content: 'CA' }], true);
    expect(r.code).toBe(0);
    expect(r.args).toEqual([
      ['--flag', null],
      ['last', null],
    ]);
    expect(r.stderr).toMatch(
      /sshcluster-launcher: scheduler starts without the cluster's files \(not our directory: .*c0ffee/,
    );
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it('replace a symlink in their place, without writing through it', async () => {
    expect((await launch([{ name: 'ca.pem', content: 'CA' }])).code).toBe(0);
    const dir = filesDir();
    const target = path.join(tmp, 'target');
    writeFileSync(target, 'theirs');
    rmSync(path.join(dir, 'ca.pem'));
    symlinkSync(target, path.join(dir, 'ca.pem'));
    const r = await launch([{ name: 'ca.pem', content: 'CA' }]);
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(lstatSync(path.join(dir, 'ca.pem')).isSymbolicLink()).toBe(false);
    expect(readFileSync(path.join(dir, 'ca.pem'), 'utf8')).toBe('CA');
    expect(readFileSync(target, 'utf8')).toBe('theirs');
  });

  it('arrive byte for byte: several lines, multi-byte characters, a line that looks like the next header', async () => {
    const odd = 'ünïcödé ✓\nworker-key.pem 3\nabc\n\n';
    const r = await launch([
      { name: 'ca.pem', content: odd },
      { name: 'worker-key.pem', content: KEY },
    ]);
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(r.args?.[2]).toEqual([path.join(filesDir(), 'ca.pem'), odd]);
    expect(readFileSync(path.join(filesDir(), 'worker-key.pem'), 'utf8')).toBe(KEY);
    expect(readdirSync(filesDir()).sort()).toEqual(['ca.pem', 'worker-key.pem']);
  });

  it('refuse a file name with a directory part, and never show the content', async () => {
    const r = await launch([{ name: '../escape.pem', content: KEY }]);
    expect(r.code).toBe(127);
    expect(r.stderr).toMatch(/not a plain file name/);
    expect(r.stderr).not.toContain('not-a-real-key');
  });
});

/** A Dask process as the controller starts it: its scratch space named by token in argv and env. */
async function launchScratch(): Promise<{
  code: number | null;
  shown?: { argv: string[]; env: string };
  stderr: string;
}> {
  const show =
    'import json, os, sys; print(json.dumps({"argv": sys.argv[1:], "env": os.environ["DASK_TEMPORARY_DIRECTORY"]}), flush=True)';
  const inv = buildRemoteCommand({
    setup: [],
    env: { TMPDIR: tmp, DASK_TEMPORARY_DIRECTORY: CLUSTER_SCRATCH_DIR },
    name: 'worker-0',
    clusterId: 'c0ffee',
    argv: [PYTHON, '-c', show, '--local-directory', CLUSTER_SCRATCH_DIR],
  });
  const r = runAsSshd('sh', inv, { PATH: '/usr/bin:/bin', HOME: tmp });
  const code = await r.exit;
  const line = r
    .out()
    .split('\n')
    .find((l) => l.startsWith('{'));
  return { code, shown: line ? JSON.parse(line) : undefined, stderr: r.err() };
}

describe("the Dask processes' scratch space", () => {
  it("is the cluster's own 0700 directory, given as --local-directory and DASK_TEMPORARY_DIRECTORY, and removed with the files", async () => {
    const r = await launchScratch();
    const dir = path.join(tmp, `sshcluster-${uid}`, 'c0ffee', 'scratch');
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(r.shown).toEqual({ argv: ['--local-directory', dir], env: dir });
    expect([mode(dir), mode(path.dirname(dir))]).toEqual([0o700, 0o700]);
    mkdirSync(path.join(dir, 'dask-worker-space', 'worker-x'), { recursive: true }); // what Dask leaves
    writeFileSync(path.join(dir, 'dask-worker-space', 'worker-x.dirlock'), '');
    expect(remove()).toEqual({ code: 0, stderr: '' });
    expect(readdirSync(path.join(tmp, `sshcluster-${uid}`)).filter((n) => n === 'c0ffee')).toEqual([]);
  });

  it("is a fresh private directory, removed when the process ends, when the cluster's is planted", async () => {
    const elsewhere = path.join(tmp, 'elsewhere');
    mkdirSync(elsewhere, { mode: 0o777 });
    mkdirSync(path.join(tmp, `sshcluster-${uid}`), { mode: 0o700 });
    symlinkSync(elsewhere, path.join(tmp, `sshcluster-${uid}`, 'c0ffee'));
    const r = await launchScratch();
    expect(r.code).toBe(0);
    const used = r.shown?.env ?? '';
    expect(r.shown?.argv).toEqual(['--local-directory', used]);
    expect(path.dirname(used)).toBe(tmp);
    expect(path.basename(used)).toMatch(new RegExp(`^sshcluster-scratch-${uid}-[0-9a-f]{16}$`));
    expect(r.stderr).toMatch(
      /worker-0 keeps its scratch space in .* until it ends \(not our directory: .*c0ffee \(a symlink or not a directory\)\)/,
    );
    expect(readdirSync(elsewhere)).toEqual([]);
    expect(readdirSync(tmp).filter((n) => n.startsWith('sshcluster-scratch-'))).toEqual([]);
  });
});
