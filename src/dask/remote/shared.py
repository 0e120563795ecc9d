# What the programs that stay on a host (boot.py, the launcher, the keeper, cluster-files) share:
# remote-programs.ts puts this text in front of each of them, so it is written once.
# user_dir(), our_dir(): ${TMPDIR:-/tmp}/sshcluster-<uid>/<name>, where they keep files.
# private_dir(): a directory is ours when it is not a symlink, is owned by us and not
# writable by others; it is opened without following a symlink and checked on the open
# descriptor, so it cannot be swapped between the check and its use.
# read_exact(): our part of stdin, unbuffered; replace_file(): a file written whole or not at all.
# read_past_own_source(): run on load, drops a program's own source from stdin when it came there.
# safe(), plain_name(): names made or checked character by character (no `re`: importing it
# and its dependencies is ~1 ms of every launch).
# No single quotes: boot.py travels with -c.
import errno, os, stat
# signal without its module: signal.py wraps the numbers in enums, and importing enum is
# ~1.5 ms of every launch (the launcher needs only the numbers and signal()).
try:
    import _signal as signal
except ImportError:
    import signal


class NotOurs(OSError):
    pass


def private_dir(path, shown, at=None, create=True):
    if create:
        try:
            os.mkdir(path, 0o700, dir_fd=at)
        except FileExistsError:
            pass
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=at)
    except OSError as e:
        if e.errno in (errno.ELOOP, errno.ENOTDIR):
            raise NotOurs("not our directory: %s (a symlink or not a directory)" % shown)
        raise
    st = os.fstat(fd)
    why = None
    if st.st_uid != os.getuid():
        why = "owned by uid %d" % st.st_uid
    elif st.st_mode & 0o022:
        why = "mode %04o, writable by others" % stat.S_IMODE(st.st_mode)
    if why is not None:
        os.close(fd)
        raise NotOurs("not our directory: %s (%s)" % (shown, why))
    if create and stat.S_IMODE(st.st_mode) != 0o700:
        os.fchmod(fd, 0o700)
    return fd


def until_stdin_closes(on_signal=None, on_down=None):
    # Our stdin is the SSH channel (or the relay's pipe): EOF means the controller is gone.
    # Until then a line TERM or KILL is the controller asking to signal our process:
    # on_signal(signal number). OpenSSH drops channel signals, and a `kill` in a new exec
    # would first run the login shell's rc file (conda or pyenv init: up to a second).
    # A line DOWN TOKEN is TERM at a teardown: on_down(TOKEN) first, where it is given.
    rest = b""
    try:
        while True:
            data = os.read(0, 65536)
            if not data:
                return
            if on_signal is None:
                continue
            lines = (rest + data).split(b"\n")
            # A line split across reads: its start is kept (bounded: our lines are ~30 bytes,
            # a DOWN and its token 29; a tail of 16 lost the DOWN of one split past it).
            rest = lines.pop()[:256]
            for line in lines:
                words = line.split()
                name = words[0] if words else b""
                if name == b"DOWN" and on_down is not None:
                    on_down(words[1] if len(words) > 1 else b"")
                if name in (b"TERM", b"DOWN", b"KILL"):
                    on_signal(signal.SIGKILL if name == b"KILL" else signal.SIGTERM)
    except OSError:
        pass


def user_dir():
    return os.path.abspath(os.path.join(os.environ.get("TMPDIR") or "/tmp", "sshcluster-%d" % os.getuid()))


def our_dir(name, create=True):
    # user_dir()/name, both levels checked; returns the open descriptor of the second.
    shown = user_dir()
    base = private_dir(shown, shown, create=create)
    try:
        return private_dir(name, os.path.join(shown, name), at=base, create=create)
    finally:
        os.close(base)


def read_exact(size):
    # Up to `size` bytes of stdin (fewer only at EOF), read unbuffered: what follows is
    # the next reader's (a program after its source, the launcher's line protocol).
    data = b""
    while len(data) < size:
        chunk = os.read(0, size - len(data))
        if not chunk:
            break
        data += chunk
    return data


def replace_file(d, name, data):
    # name in the directory open as d: left as it is when it already holds data, else
    # written 0600 to a temporary name and renamed over, so no reader sees half of it.
    try:
        with open(os.open(name, os.O_RDONLY | os.O_NOFOLLOW, dir_fd=d), "rb") as f:
            if f.read(len(data) + 1) == data:
                return
    except OSError as e:
        if e.errno not in (errno.ENOENT, errno.ELOOP):
            raise  # ELOOP: a symlink there, which the rename replaces (never followed)
    tmp = ".%s.%d.tmp" % (name, os.getpid())
    try:
        os.unlink(tmp, dir_fd=d)  # left by a crash, under a PID used again
    except FileNotFoundError:
        pass
    with open(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600, dir_fd=d), "wb") as f:
        f.write(data)
    os.rename(tmp, name, src_dir_fd=d, dst_dir_fd=d)


NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")


def safe(text):
    # A name usable as one path component: anything else becomes "_".
    return "".join(c if c in NAME_CHARS else "_" for c in text) or "_"


def plain_name(text):
    # A letter or digit, then letters, digits, ".", "_" or "-": a file or cluster name.
    return bool(text) and text[0] not in "._-" and all(c in NAME_CHARS for c in text)


def read_past_own_source():
    # An installed program the shell started straight from its file (remote-programs.ts,
    # installedExec) rather than through boot.py still has its source on stdin, ahead of
    # its own input: SSHCLUSTER_SOURCE_SIZE bytes, read and dropped here. Popped, so no
    # child inherits it.
    size = os.environ.pop("SSHCLUSTER_SOURCE_SIZE", None)
    if size:
        read_exact(int(size))


read_past_own_source()
