# The files a cluster keeps on a host besides its processes (its TLS certificates and
# keys; on the scheduler's host, the scheduler preload), in the cluster's private
# directory ${TMPDIR:-/tmp}/sshcluster-<uid>/<ID>/files:
# every level ours, mode 0700, no symlink (private_dir, the launcher's check), each
# file 0600, written to a temporary name and renamed over, so no reader sees half a key.
#
#   cluster-files put ID      stdin: a JSON list of {"name": ..., "content": ...};
#                             prints "@sshc dir PATH" (the directory the argv points at)
#   cluster-files remove ID   removes the files and the directory (nothing there: fine)
#
# The content arrives on stdin only: never on a command line, in the environment or a
# log. Python 3.7 compatible, stdlib only.
import json, os, re, shutil, stat, sys
# NotOurs, private_dir(), our_dir(), user_dir(): shared.py, which remote-programs.ts puts in front.

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
MAX_INPUT = 1 << 20
SUB = "files"


def open_dir(cluster, create):
    # Each level checked on its descriptor; returns (fd of the files dir, its path).
    c = our_dir(cluster, create=create)
    try:
        return private_dir(SUB, os.path.join(user_dir(), cluster, SUB), at=c, create=create), os.path.join(user_dir(), cluster, SUB)
    finally:
        os.close(c)


def put(cluster):
    raw = sys.stdin.buffer.read(MAX_INPUT + 1)
    if len(raw) > MAX_INPUT:
        raise ValueError("more than %d bytes of files" % MAX_INPUT)
    files = json.loads(raw.decode("utf-8"))
    d, path = open_dir(cluster, True)
    try:
        for f in files:
            name = f["name"]
            if not NAME.match(name):
                raise ValueError("not a plain file name: %r" % name)
            tmp = ".%s.%d.tmp" % (name, os.getpid())
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600, dir_fd=d)
            with open(fd, "wb") as out:
                out.write(f["content"].encode("utf-8"))
                out.flush()
                os.fsync(out.fileno())
            os.rename(tmp, name, src_dir_fd=d, dst_dir_fd=d)
    finally:
        os.close(d)
    sys.stdout.write("@sshc dir %s\n" % path)


def remove(cluster):
    try:
        d, _ = open_dir(cluster, False)
    except FileNotFoundError:
        return
    try:
        for name in os.listdir(d):
            # What a Python that imported a file from here left (__pycache__) goes too;
            # rmtree works on descriptors and follows no symlink.
            if stat.S_ISDIR(os.stat(name, dir_fd=d, follow_symlinks=False).st_mode):
                shutil.rmtree(os.path.join(user_dir(), cluster, SUB, name))
            else:
                os.unlink(name, dir_fd=d)
    finally:
        os.close(d)
    cdir = os.path.join(user_dir(), cluster)
    os.rmdir(os.path.join(cdir, SUB))
    try:
        os.rmdir(cdir)
    except OSError:
        pass  # the launcher's orphan logs still live there


def main():
    mode, cluster = sys.argv[1], sys.argv[2]
    if not NAME.match(cluster):
        raise ValueError("not a cluster id: %r" % cluster)
    try:
        put(cluster) if mode == "put" else remove(cluster)
    except (OSError, ValueError, KeyError) as e:
        sys.stderr.write("sshcluster-files: %s\n" % e)
        sys.exit(1)


main()
