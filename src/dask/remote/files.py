# The files a cluster keeps on a host besides its processes (its TLS certificates and
# keys; on the scheduler's host, the scheduler preload), in the cluster's private
# directory ${TMPDIR:-/tmp}/sshcluster-<uid>/<ID>/files:
# every level ours, mode 0700, no symlink (private_dir), each file 0600, written to a
# temporary name and renamed over, so no reader sees half a key (replace_file). The
# launcher writes them before it starts a process that names them (put_files);
# cluster-files.py removes them. remote-programs.ts puts this text, after shared.py, in
# front of both.
import os
# private_dir(), our_dir(), user_dir(), replace_file(), plain_name(): shared.py.

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


def parse_files(raw):
    # raw: for each file a line "NAME SIZE", then its SIZE bytes (remote-command.ts);
    # not JSON, whose import (with `re`) is ~2 ms of every launch that has files.
    files, at = [], 0
    while at < len(raw):
        end = raw.index(b"\n", at)
        name, size = raw[at:end].decode("utf-8").rsplit(" ", 1)
        start, at = end + 1, end + 1 + int(size)
        if not start <= at <= len(raw):
            raise ValueError("%r: not %s bytes of content" % (name, size))
        files.append((name, raw[start:at]))
    return files


def put_files(cluster, raw):
    # A file already there with the same content is left as it is (every launch on a
    # host brings the same files). Returns the directory's path.
    if len(raw) > MAX_FILES_INPUT:
        raise ValueError("more than %d bytes of files" % MAX_FILES_INPUT)
    files = parse_files(raw)
    for name, _ in files:
        if not plain_name(name):
            raise ValueError("not a plain file name: %r" % name)
    d, path = files_dir(cluster, True)
    try:
        for name, content in files:
            replace_file(d, name, content)
    finally:
        os.close(d)
    return path
