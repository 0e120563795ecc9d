import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  MAX_SOCKET_PATH_BYTES,
  clusterPaths,
  ensureClusterDir,
  httpSocketPathFor,
  socketPathFor,
  stateRoot,
} from '../../../src/control/paths.js';

let tmp: string;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sshc-paths-'));
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

const mode = (p: string) => fs.statSync(p).mode & 0o777;

describe('control paths', () => {
  it('puts the state root under XDG_STATE_HOME, else ~/.local/state', () => {
    expect(stateRoot({ XDG_STATE_HOME: '/x/state' }, '/home/a')).toBe('/x/state/sshcluster');
    expect(stateRoot({}, '/home/a')).toBe('/home/a/.local/state/sshcluster');
    expect(stateRoot({ XDG_STATE_HOME: '' }, '/home/a')).toBe('/home/a/.local/state/sshcluster');
    expect(stateRoot({ XDG_STATE_HOME: 'relative' }, '/home/a')).toBe('/home/a/.local/state/sshcluster');
  });

  it('lays out one dir per cluster', () => {
    expect(clusterPaths('/r', 'lab')).toEqual({
      dir: '/r/lab',
      stateFile: '/r/lab/state.json',
      socket: '/r/lab/control.sock',
      httpSocket: '/r/lab/http.sock',
      logsDir: '/r/lab/logs',
      controllerLog: '/r/lab/controller.log',
    });
  });

  it('refuses cluster names that are not a plain directory name', () => {
    for (const bad of ['', '.', '..', 'a/b', '../x']) {
      expect(() => clusterPaths('/r', bad)).toThrow(/cannot be used as a directory name/);
    }
  });

  it('creates the cluster and logs dirs 0700 whatever the umask', async () => {
    const old = process.umask(0o022);
    try {
      const p = clusterPaths(path.join(tmp, 'state', 'sshcluster'), 'lab');
      await ensureClusterDir(p);
      expect(mode(p.dir)).toBe(0o700);
      expect(mode(p.logsDir)).toBe(0o700);
      fs.chmodSync(p.dir, 0o755);
      await ensureClusterDir(p);
      expect(mode(p.dir)).toBe(0o700);
    } finally {
      process.umask(old);
    }
  });

  it('keeps a short socket path in the cluster dir', () => {
    const p = clusterPaths('/home/a/.local/state/sshcluster', 'lab');
    expect(socketPathFor(p)).toBe(p.socket);
    expect(httpSocketPathFor(p)).toBe(p.httpSocket);
  });

  it('falls back to a short private dir under /tmp for a long socket path', async () => {
    const p = clusterPaths(path.join(tmp, 'x'.repeat(120)), 'lab');
    const opts = { tmpDir: tmp, uid: os.userInfo().uid };
    const sock = socketPathFor(p, opts);
    expect(Buffer.byteLength(p.socket)).toBeGreaterThan(MAX_SOCKET_PATH_BYTES);
    expect(path.dirname(sock)).toBe(path.join(tmp, `sshcluster-${opts.uid}`));
    expect(sock).toMatch(/\/[0-9a-f]{20}\.sock$/);
    expect(socketPathFor(p, opts)).toBe(sock); // every process computes the same one
    expect(socketPathFor(clusterPaths(path.join(tmp, 'x'.repeat(120)), 'other'), opts)).not.toBe(sock);
    // The HTTP socket falls back the same way, to its own name in the same private dir.
    const http = httpSocketPathFor(p, opts);
    expect(path.dirname(http)).toBe(path.dirname(sock));
    expect(http).not.toBe(sock);
    await ensureClusterDir(p, opts);
    expect(mode(path.dirname(sock))).toBe(0o700);
  });

  it('refuses a fallback dir that is a symlink or owned by someone else', async () => {
    const p = clusterPaths(path.join(tmp, 'x'.repeat(120)), 'lab');
    const uid = os.userInfo().uid;
    fs.mkdirSync(path.join(tmp, 'elsewhere'));
    fs.symlinkSync(path.join(tmp, 'elsewhere'), path.join(tmp, `sshcluster-${uid}`));
    await expect(ensureClusterDir(p, { tmpDir: tmp, uid })).rejects.toThrow(/not a directory owned by this user/);
    fs.unlinkSync(path.join(tmp, `sshcluster-${uid}`));
    fs.mkdirSync(path.join(tmp, `sshcluster-${uid + 1}`));
    await expect(ensureClusterDir(p, { tmpDir: tmp, uid: uid + 1 })).rejects.toThrow(
      /not a directory owned by this user/,
    );
  });
});
