# Runs one of the programs in this folder on a host, as
#   python -c BOOT NAME SIZE KEY [ARG...]
# with the program's source (SIZE bytes) on stdin, right after the environment block
# the shell has read. It reads exactly SIZE bytes (the rest of stdin belongs to the
# program: the launcher watches it for EOF), then, unless KEY is "-", installs the
# source as ${TMPDIR:-/tmp}/sshcluster-<uid>/KEY/NAME (0600, in directories we own
# with mode 0700, checked like the launcher's log directory) and execs
#   python that-file ARG...
# in place of itself, so ps, top and htop show "python .../NAME ARG..." instead of the
# source. KEY is a hash of the source: versions never overwrite each other, and a file
# already there with the same content is used as it is. When it cannot be installed
# (no space, a planted directory) or KEY is "-", the source runs here, inline.
# This text is passed with -c: no single quotes, and comment lines are dropped first.
import errno, os, stat, sys
# our_dir() and user_dir(): shared.py, which remote-programs.ts puts in front.


def read_source(size):
    src = b""
    while len(src) < size:
        chunk = os.read(0, size - len(src))
        if not chunk:
            break
        src += chunk
    return src


def install(name, key, src):
    d = our_dir(key)
    try:
        try:
            with open(os.open(name, os.O_RDONLY | os.O_NOFOLLOW, dir_fd=d), "rb") as f:
                same = f.read() == src
        except FileNotFoundError:
            same = False
        if not same:
            tmp = "%s.%d.tmp" % (name, os.getpid())
            with open(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600, dir_fd=d), "wb") as f:
                f.write(src)
            os.rename(tmp, name, src_dir_fd=d, dst_dir_fd=d)
    finally:
        os.close(d)
    return os.path.join(user_dir(), key, name)


def main():
    name, size, key, args = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
    src = read_source(size)
    if len(src) != size:
        sys.stderr.write("sshcluster: %s: only %d of %d bytes of the program arrived\n" % (name, len(src), size))
        sys.exit(127)
    if key != "-" and sys.executable:
        try:
            path = install(name, key, src)
            os.execv(sys.executable, [sys.executable, path] + args)
        except OSError as e:
            sys.stderr.write("sshcluster: %s runs inline, as it could not be installed: %s\n" % (name, e))
    sys.argv = [name] + args
    return compile(src, name, "exec")


exec(main(), {"__name__": "__main__", "__builtins__": __builtins__})
