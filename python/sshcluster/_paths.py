"""Where the CLI keeps a cluster's state, and the CLI's ownership checks on it.

The control socket takes commands without further auth, so a state dir another user
owns or can write to is refused before anything in it is read or connected to (the
same rules as the CLI's src/control/state-dirs.ts).
"""
from __future__ import annotations

import os
import stat
from pathlib import Path

from ._errors import SSHClusterError


def state_root(env: dict | None = None) -> Path:
    env = os.environ if env is None else env
    xdg = env.get("XDG_STATE_HOME")
    # The XDG spec says relative values are invalid and must be ignored.
    base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".local" / "state"
    return base / "sshcluster"


def cluster_dir(name: str, root: Path | None = None) -> Path:
    if not name or name in (".", "..") or any(c in name for c in "/\\\0"):
        raise SSHClusterError(f'cluster name "{name}" cannot be used as a directory name',
                              hint='a plain name: no "/", not "." or ".."')
    return (root or state_root()) / name


def check_state_dirs(root: Path, dirs: list[Path] = ()) -> None:
    """root's parent may be shared when sticky or root's; root and cluster dirs are ours."""
    uid = os.getuid()
    _check_base(root.parent, uid, os.getgid())
    for d in [root, *dirs]:
        _check_own(d, uid)


def _check_base(d: Path, uid: int, gid: int) -> None:
    try:
        st = os.stat(d)
    except FileNotFoundError:
        return
    if st.st_uid not in (uid, 0):
        raise _not_ours(d, st.st_uid, uid)
    if st.st_mode & stat.S_ISVTX:
        return
    if st.st_mode & stat.S_IWOTH or (st.st_mode & stat.S_IWGRP and st.st_gid != gid):
        raise _writable(d, st.st_mode)


def _check_own(d: Path, uid: int) -> None:
    try:
        st = os.lstat(d)
    except FileNotFoundError:
        return
    if stat.S_ISLNK(st.st_mode) or not stat.S_ISDIR(st.st_mode):
        what = "a symlink" if stat.S_ISLNK(st.st_mode) else "not a directory"
        raise SSHClusterError(f"{d} is {what}; refusing to use the cluster state and control socket there",
                              hint="check what it is and remove it, or set XDG_STATE_HOME to a directory of your own")
    if st.st_uid != uid:
        raise _not_ours(d, st.st_uid, uid)
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise _writable(d, st.st_mode)


def _not_ours(d: Path, owner: int, uid: int) -> SSHClusterError:
    return SSHClusterError(
        f"{d} belongs to uid {owner}, not to this user (uid {uid}); refusing to use the cluster state and control socket there",
        hint="another user could read or replace them: set XDG_STATE_HOME to a directory of your own (default ~/.local/state)")


def _writable(d: Path, mode: int) -> SSHClusterError:
    return SSHClusterError(
        f"{d} is writable by group or others (mode {stat.S_IMODE(mode):04o}); refusing to use the cluster state and control socket there",
        hint=f"another user could replace the control socket: chmod go-w {d}")
