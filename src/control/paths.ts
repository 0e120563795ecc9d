// Where a cluster's controller keeps its state, socket and logs. Everything lives in a
// 0700 directory per cluster, because the socket accepts commands without further auth
// and the logs may show what the user's code prints.
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ExpectedError } from '../errors.js';
import { checkStateDirs, type DirOwner } from './state-dirs.js';

export interface ClusterPaths {
  dir: string;
  stateFile: string;
  /** The preferred socket path; see socketPathFor for the one actually used. */
  socket: string;
  /** The scheduler's HTTP server, owner only; see httpSocketPathFor. */
  httpSocket: string;
  logsDir: string;
  controllerLog: string;
}

/** Where the short socket fallback goes; tests point it elsewhere. */
export interface SocketDirOptions {
  tmpDir?: string;
  uid?: number;
}

/**
 * sun_path holds 108 bytes on Linux and 104 on macOS, both including the NUL; the
 * smaller one keeps a state dir portable between the two.
 */
export const MAX_SOCKET_PATH_BYTES = 103;

export function stateRoot(env: Record<string, string | undefined>, homedir: string): string {
  const xdg = env.XDG_STATE_HOME;
  // The XDG spec says relative values are invalid and must be ignored.
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(homedir, '.local', 'state');
  return path.join(base, 'sshcluster');
}

export function clusterPaths(root: string, name: string): ClusterPaths {
  if (!name || name === '.' || name === '..' || /[/\\\0]/.test(name)) {
    throw new ExpectedError(`cluster name "${name}" cannot be used as a directory name`, {
      exitCode: 2,
      hint: 'set a plain name with `name:` in the host file or --name (no "/", not "." or "..")',
    });
  }
  const dir = path.join(root, name);
  return {
    dir,
    stateFile: path.join(dir, 'state.json'),
    socket: path.join(dir, 'control.sock'),
    httpSocket: path.join(dir, 'http.sock'),
    logsDir: path.join(dir, 'logs'),
    controllerLog: path.join(dir, 'controller.log'),
  };
}

/**
 * The socket path to listen on: the one in the cluster dir when it fits, else a short
 * one under /tmp/sshcluster-<uid>/ named by a hash of the long one, so every process
 * computes the same path. The controller records the path it used in the state file.
 */
export function socketPathFor(paths: ClusterPaths, opts: SocketDirOptions = {}): string {
  return fittingSocketPath(paths.socket, opts);
}

/** The forwarded scheduler HTTP server's socket, placed by the same rule. */
export function httpSocketPathFor(paths: ClusterPaths, opts: SocketDirOptions = {}): string {
  return fittingSocketPath(paths.httpSocket, opts);
}

function fittingSocketPath(preferred: string, opts: SocketDirOptions): string {
  if (Buffer.byteLength(preferred) <= MAX_SOCKET_PATH_BYTES) return preferred;
  const hash = createHash('sha256').update(preferred).digest('hex').slice(0, 20);
  return path.join(shortSocketDir(opts), `${hash}.sock`);
}

/**
 * Creates the cluster dir (0700), its logs dir (0700) and, when needed, the short socket
 * dir; refuses dirs another user owns or can write to (checked after mkdir, which
 * leaves an existing dir as it is).
 */
export async function ensureClusterDir(paths: ClusterPaths, opts: SocketDirOptions = {}): Promise<void> {
  await fs.mkdir(paths.logsDir, { recursive: true, mode: 0o700 });
  const socket = socketPathFor(paths, opts);
  if (socket !== paths.socket || httpSocketPathFor(paths, opts) !== paths.httpSocket)
    await ensurePrivateDir(shortSocketDir(opts), uidOf(opts));
  await checkClusterDirs(paths, opts);
  // mkdir's mode is filtered through the umask and ignored for existing dirs.
  await fs.chmod(paths.dir, 0o700);
  await fs.chmod(paths.logsDir, 0o700);
}

/**
 * After an `up` that failed and kept nothing (no state file, no recorded run): its logs
 * dir and cluster dir go if empty, so the name is not left looking like a cluster's.
 * rmdir only removes an empty dir: whatever else is there (older runs) stays, and so
 * does the dir.
 */
export async function removeClusterDirIfEmpty(paths: ClusterPaths): Promise<void> {
  for (const dir of [paths.logsDir, paths.dir]) {
    try {
      await fs.rmdir(dir);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTEMPTY' && code !== 'EEXIST') throw err;
      if (code !== 'ENOENT') return;
    }
  }
}

/** Before using a cluster's state or socket: its dirs are ours (state-dirs.ts). */
export async function checkClusterDirs(paths: ClusterPaths, opts: SocketDirOptions = {}): Promise<void> {
  await checkStateDirs(path.dirname(paths.dir), [paths.dir, paths.logsDir], ownerOf(opts));
}

/** Before listing the clusters under root. */
export async function checkStateRoot(root: string, opts: SocketDirOptions = {}): Promise<void> {
  await checkStateDirs(root, [], ownerOf(opts));
}

function ownerOf(opts: SocketDirOptions): DirOwner | undefined {
  const uid = uidOf(opts);
  if (uid === undefined) return undefined;
  try {
    return { uid, gid: opts.uid === undefined ? os.userInfo().gid : undefined };
  } catch {
    return { uid };
  }
}

function shortSocketDir(opts: SocketDirOptions): string {
  return path.join(opts.tmpDir ?? '/tmp', `sshcluster-${uidOf(opts) ?? 'user'}`);
}

function uidOf(opts: SocketDirOptions): number | undefined {
  if (opts.uid !== undefined) return opts.uid;
  try {
    return os.userInfo().uid;
  } catch {
    return undefined; // no passwd entry (some containers): name the dir without a uid
  }
}

/**
 * /tmp is shared: another user could have made the dir first (or a symlink in its
 * place) to read or hijack our socket, so it must be a real dir that we own.
 */
async function ensurePrivateDir(dir: string, uid: number | undefined): Promise<void> {
  try {
    await fs.mkdir(dir, { mode: 0o700 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const st = await fs.lstat(dir);
  if (!st.isDirectory() || (uid !== undefined && st.uid !== uid)) {
    throw new ExpectedError(`${dir} is not a directory owned by this user; refusing to put the control socket there`, {
      hint: `remove it (after checking what it is) or set XDG_STATE_HOME to a shorter path`,
    });
  }
  await fs.chmod(dir, 0o700);
}
