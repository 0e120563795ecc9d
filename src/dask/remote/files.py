# The files a cluster keeps on a host besides its processes (its TLS certificates and
# keys; on the scheduler's host, the scheduler preload), in the cluster's private
# directory ${TMPDIR:-/tmp}/sshcluster-<uid>/<ID>/files:
# every level ours, mode 0700, no symlink (private_dir), each file 0600, written to a
# temporary name and renamed over, so no reader sees half a key. The launcher writes
# them before it starts a process that names them (put_files); cluster-files.py removes
# them. remote-programs.ts puts this text, after shared.py, in front of both.
import json, os, re
# NotOurs, private_dir(), our_dir(), user_dir(): shared.py.

FILE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
MAX_FILES_INPUT = 1 << 20
FILES_SUB = "files"


def files_dir(cluster, create):
    # Each level checked on its descriptor; returns (fd of the files dir, its path).
    c = our_dir(cluster, create=create)
    try:
        path = os.path.join(user_dir(), cluster, FILES_SUB)
        return private_dir(FILES_SUB, path, at=c, create=create), path
    finally:
        os.close(c)


def read_exact(size):
    # Exactly `size` bytes of stdin, unbuffered: what follows belongs to the caller.
    data = b""
    while len(data) < size:
        chunk = os.read(0, size - len(data))
        if not chunk:
            raise ValueError("only %d of %d bytes of files arrived" % (len(data), size))
        data += chunk
    return data


def put_files(cluster, raw):
    # raw: a JSON list of {"name": ..., "content": ...}. A file already there with the
    # same content is left as it is (every launch on a host brings the same files).
    if len(raw) > MAX_FILES_INPUT:
        raise ValueError("more than %d bytes of files" % MAX_FILES_INPUT)
    files = json.loads(raw.decode("utf-8"))
    d, path = files_dir(cluster, True)
    try:
        for f in files:
            name, content = f["name"], f["content"].encode("utf-8")
            if not FILE_NAME.match(name):
                raise ValueError("not a plain file name: %r" % name)
            try:
                with open(os.open(name, os.O_RDONLY | os.O_NOFOLLOW, dir_fd=d), "rb") as old:
                    if old.read(len(content) + 1) == content:
                        continue
            except FileNotFoundError:
                pass
            tmp = ".%s.%d.tmp" % (name, os.getpid())
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600, dir_fd=d)
            with open(fd, "wb") as out:
                out.write(content)
                out.flush()
                os.fsync(out.fileno())
            os.rename(tmp, name, src_dir_fd=d, dst_dir_fd=d)
    finally:
        os.close(d)
    return path
