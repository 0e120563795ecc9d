# Runs one of the programs in this folder on a host, as
#   python -c BOOT NAME SIZE KEY [ARG...]
# with the program's source (SIZE bytes) on stdin, right after the environment block
# the shell has read. It reads exactly SIZE bytes (the rest of stdin belongs to the
# program: the launcher watches it for EOF), then, unless KEY is "-", installs the
# source as ${TMPDIR:-/tmp}/sshcluster-<uid>/KEY/NAME (0600, in directories we own
# with mode 0700, checked like the launcher's log directory) and execs
#   python that-file ARG...
# in place of itself (with -S again if it was started with -S), so ps, top and htop
# show "python .../NAME ARG..." instead of the source. KEY is a hash of the source:
# versions never overwrite each other, and a file already there with the same content
# is used as it is. When it cannot be installed (no space, a planted directory) or KEY
# is "-", the source runs here, inline.
# This text is passed with -c: no single quotes, and comment lines are dropped first.
import os, sys
# our_dir(), user_dir(), read_exact(), replace_file(): shared.py, which remote-programs.ts puts in front.


def install(name, key, src):
    d = our_dir(key)
    try:
        replace_file(d, name, src)
    finally:
        os.close(d)
    return os.path.join(user_dir(), key, name)


def main():
    name, size, key, args = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
    src = read_exact(size)
    if len(src) != size:
        sys.stderr.write("sshcluster: %s: only %d of %d bytes of the program arrived\n" % (name, len(src), size))
        sys.exit(127)
    if key != "-" and sys.executable:
        try:
            path = install(name, key, src)
            os.execv(sys.executable, [sys.executable] + ["-S"] * sys.flags.no_site + [path] + args)
        except OSError as e:
            sys.stderr.write("sshcluster: %s runs inline, as it could not be installed: %s\n" % (name, e))
    sys.argv = [name] + args
    return compile(src, name, "exec")


exec(main(), {"__name__": "__main__", "__builtins__": __builtins__})
