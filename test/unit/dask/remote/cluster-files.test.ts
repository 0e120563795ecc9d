// cluster-files.py run for real under sh as sshd would run it (`sh -c COMMAND`, the
// input on stdin): the files land 0600 in a 0700 directory under the host's TMPDIR,
// their content never on a command line; `remove` leaves nothing; a planted directory
// is refused without writing.
import { spawnSync } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildClusterFilesCommand, parseClusterFilesDir, type HostFile } from '../../../../src/dask/remote-command.js';

const uid = os.userInfo().uid;
const KEY = '-----BEGIN PRIVATE KEY-----\nnot-a-real-key\n-----END PRIVATE KEY-----\n';
let tmp = '';
beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'sshc-files-'));
});
afterEach(() => rmSync(tmp, { recursive: true, force: true }));

function files(put?: HostFile[]) {
  const inv = buildClusterFilesCommand({ setup: [], env: { TMPDIR: tmp }, python: '/usr/bin/python3', clusterId: 'c0ffee' }, put);
  expect(inv.command).not.toContain('not-a-real-key');
  const r = spawnSync('sh', ['-c', inv.command], { input: inv.input, encoding: 'utf8', env: { PATH: '/usr/bin:/bin', HOME: tmp } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const mode = (p: string) => lstatSync(p).mode & 0o777;

describe('cluster-files.py', () => {
  it('writes the files 0600 into a 0700 dir, reports it, and removes them', () => {
    const r = files([{ name: 'ca.pem', content: 'CA' }, { name: 'worker-key.pem', content: KEY }]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const dir = parseClusterFilesDir(r.stdout);
    expect(dir).toBe(path.join(tmp, `sshcluster-${uid}`, 'c0ffee', 'files'));
    expect(readdirSync(dir!).sort()).toEqual(['ca.pem', 'worker-key.pem']);
    expect(readFileSync(path.join(dir!, 'worker-key.pem'), 'utf8')).toBe(KEY);
    expect([mode(dir!), mode(path.dirname(dir!)), mode(path.join(dir!, 'worker-key.pem'))]).toEqual([0o700, 0o700, 0o600]);
    // Again (a reconnect): the same files, replaced.
    expect(files([{ name: 'ca.pem', content: 'CA2' }]).code).toBe(0);
    expect(readFileSync(path.join(dir!, 'ca.pem'), 'utf8')).toBe('CA2');
    mkdirSync(path.join(dir!, '__pycache__')); // a Python that imported a file from here
    const gone = files();
    expect([gone.code, gone.stderr]).toEqual([0, '']);
    expect(readdirSync(path.join(tmp, `sshcluster-${uid}`))).toEqual([]);
    // Nothing there any more: removing again is fine.
    expect(files().code).toBe(0);
  });

  it('refuses a planted directory (a symlink) and writes nothing through it', () => {
    const elsewhere = path.join(tmp, 'elsewhere');
    mkdirSync(elsewhere);
    mkdirSync(path.join(tmp, `sshcluster-${uid}`), { mode: 0o700 });
    symlinkSync(elsewhere, path.join(tmp, `sshcluster-${uid}`, 'c0ffee'));
    const r = files([{ name: 'ca.pem', content: 'CA' }]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^sshcluster-files: not our directory: .*c0ffee \(a symlink or not a directory\)/);
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it('refuses a file name with a directory part', () => {
    const r = files([{ name: '../escape.pem', content: KEY }]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/not a plain file name/);
    expect(r.stderr).not.toContain('not-a-real-key');
  });
});
