// The state dirs hold the control socket, which takes commands without further auth: a
// dir another user owns or can write to lets them put their own listener there and
// receive our `scale` and `down`. Checked before a dir is used, by the controller that
// makes it and by every command that connects through it (lstat, so a symlink counts
// as someone else's).
import fs from 'node:fs/promises';
import path from 'node:path';
import { ExpectedError } from '../errors.js';

const GROUP_OTHER_WRITE = 0o022;
const GROUP_WRITE = 0o020;
const OTHER_WRITE = 0o002;
const STICKY = 0o1000;

/** Who "this user" is; gid: the primary group (user private groups, umask 002). */
export interface DirOwner {
  uid: number;
  gid?: number;
}

/**
 * `root` is $XDG_STATE_HOME/sshcluster; its parent may be root's, shared when sticky
 * (/tmp), or group-writable when the group is the user's own (umask 002 with user
 * private groups). `root` and each cluster dir are ours (made 0700): real dirs of the
 * user, not group/other writable. Dirs that do not exist yet pass (their creator
 * checks them after mkdir).
 */
export async function checkStateDirs(
  root: string,
  dirs: readonly string[],
  owner: DirOwner | undefined,
): Promise<void> {
  if (owner === undefined) return;
  await checkBase(path.dirname(root), owner);
  for (const dir of [root, ...dirs]) await checkOwn(dir, owner.uid);
}

async function checkBase(dir: string, owner: DirOwner): Promise<void> {
  const st = await statOrUndefined(dir, fs.stat);
  if (!st) return;
  // Its owner can rename what is in it, sticky or not.
  if (st.uid !== owner.uid && st.uid !== 0) throw notOurs(dir, st.uid, owner.uid);
  if (st.mode & STICKY) return;
  const groupOk = st.gid === owner.gid;
  if (st.mode & OTHER_WRITE || (st.mode & GROUP_WRITE && !groupOk)) throw writable(dir, st.mode);
}

async function checkOwn(dir: string, uid: number): Promise<void> {
  const st = await statOrUndefined(dir, fs.lstat);
  if (!st) return;
  if (st.isSymbolicLink() || !st.isDirectory()) {
    throw new ExpectedError(
      `${dir} is ${st.isSymbolicLink() ? 'a symlink' : 'not a directory'}; refusing to keep the cluster state and control socket there`,
      {
        hint: `check what it is and remove it, or set XDG_STATE_HOME to a directory of your own`,
      },
    );
  }
  if (st.uid !== uid) throw notOurs(dir, st.uid, uid);
  if (st.mode & GROUP_OTHER_WRITE) throw writable(dir, st.mode);
}

async function statOrUndefined(dir: string, stat: typeof fs.stat): Promise<import('node:fs').Stats | undefined> {
  try {
    return await stat(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

function notOurs(dir: string, owner: number, uid: number): ExpectedError {
  return new ExpectedError(
    `${dir} belongs to uid ${owner}, not to this user (uid ${uid}); refusing to keep the cluster state and control socket there`,
    {
      hint: 'another user could read or replace them: set XDG_STATE_HOME to a directory of your own (default ~/.local/state)',
    },
  );
}

function writable(dir: string, mode: number): ExpectedError {
  const m = (mode & 0o7777).toString(8).padStart(4, '0');
  return new ExpectedError(
    `${dir} is writable by group or others (mode ${m}); refusing to keep the cluster state and control socket there`,
    {
      hint: `another user could replace the control socket: chmod go-w ${dir}`,
    },
  );
}
