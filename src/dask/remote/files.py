# The files a cluster keeps on a host besides its processes (its TLS certificates and
# keys; on the scheduler's host, the scheduler preload), in the cluster's private
# directory ${TMPDIR:-/tmp}/sshcluster-<uid>/<ID>/files:
# every level ours, mode 0700, no symlink (private_dir), each file 0600, written to a
# temporary name and renamed over, so no reader sees half a key (replace_file). The
# launcher writes them before it starts a process that names them (put_files);
# cluster-files.py removes them. remote-programs.ts puts this text, after shared.py, in
# front of both.
import json, os, re
# private_dir(), our_dir(), user_dir(), replace_file(): shared.py.

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


def put_files(cluster, raw):
    # raw: a JSON list of {"name": ..., "content": ...}. A file already there with the
    # same content is left as it is (every launch on a host brings the same files).
    # Returns the directory's path.
    if len(raw) > MAX_FILES_INPUT:
        raise ValueError("more than %d bytes of files" % MAX_FILES_INPUT)
    files = json.loads(raw.decode("utf-8"))
    d, path = files_dir(cluster, True)
    try:
        for f in files:
            name = f["name"]
            if not FILE_NAME.match(name):
                raise ValueError("not a plain file name: %r" % name)
            replace_file(d, name, f["content"].encode("utf-8"))
    finally:
        os.close(d)
    return path
