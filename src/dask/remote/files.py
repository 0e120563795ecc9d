# The files a cluster keeps on a host besides its processes (its TLS certificates and
# keys; on the scheduler's host, the scheduler preload), in the cluster's private
# directory ${TMPDIR:-/tmp}/sshcluster-<uid>/<ID>/files:
# every level ours, mode 0700, no symlink (private_dir), each file 0600, written to a
# temporary name and renamed over, so no reader sees half a key (replace_file). The
# launcher writes them before it starts a process that names them (put_files). At a
# teardown the host's last launcher removes them with the scratch space as it ends, and
# cluster-files.py where none did (remove_cluster_files). remote-programs.ts puts this
# text, after shared.py, in front of both.
import os, stat
# private_dir(), our_dir(), user_dir(), replace_file(), plain_name(): shared.py.

MAX_FILES_INPUT = 1 << 20
FILES_SUB = "files"
SCRATCH_SUB = "scratch"


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


def remove_sub(cluster, sub):
    # Each level checked as it was made (private_dir): a planted one is refused, not followed.
    c = our_dir(cluster, create=False)
    try:
        path = os.path.join(user_dir(), cluster, sub)
        try:
            d = private_dir(sub, path, at=c, create=False)
        except FileNotFoundError:
            return
        try:
            for name in os.listdir(d):
                # What a Python that imported a file from here left (__pycache__), and Dask's
                # workspaces, go too; rmtree works on descriptors and follows no symlink.
                # An entry gone meanwhile was taken by another remover (hosts that share the
                # TMPDIR end at once; a look beside a launcher at a forced stop): not an error,
                # and no reason to stop half-way.
                try:
                    if stat.S_ISDIR(os.stat(name, dir_fd=d, follow_symlinks=False).st_mode):
                        if not remove_flat(d, name):
                            remove_tree(os.path.join(path, name))
                    else:
                        os.unlink(name, dir_fd=d)
                except FileNotFoundError:
                    pass
        finally:
            os.close(d)
        if_there(os.rmdir, path)
    finally:
        os.close(c)


def if_there(f, *args, **kwargs):
    # f(...), where an entry another remover took first is no error (None then).
    try:
        return f(*args, **kwargs)
    except FileNotFoundError:
        return None


def remove_tree(path):
    # rmtree stops at an entry another remover took first; again on what is left (not
    # rmtree's onerror, which Python 3.12 warns about on stderr).
    import shutil

    for _ in range(10):
        try:
            shutil.rmtree(path)
            return
        except FileNotFoundError:
            if not os.path.lexists(path):
                return
    shutil.rmtree(path)


def remove_flat(d, name):
    # A directory of plain files only (the __pycache__ every host has), emptied and removed
    # here through descriptors; False, untouched, when it holds a directory. Importing
    # shutil (re, enum, fnmatch: ~8 of a look's ~20 ms of CPU) is left to deeper trees:
    # 65 hosts' last looks at once on 2 cores paid it ~0.5 s of CPU.
    sub = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=d)
    try:
        names = os.listdir(sub)
        for n in names:
            st = if_there(os.stat, n, dir_fd=sub, follow_symlinks=False)
            if st is not None and stat.S_ISDIR(st.st_mode):
                return False
        for n in names:
            if_there(os.unlink, n, dir_fd=sub)
    finally:
        os.close(sub)
    if_there(os.rmdir, name, dir_fd=d)
    return True


def remove_cluster_files(cluster):
    # The files, the scratch space and their directory (kept while orphan logs live there).
    for sub in (FILES_SUB, SCRATCH_SUB):
        try:
            remove_sub(cluster, sub)
        except FileNotFoundError:
            pass  # nothing there, or the cluster's directory itself is gone
    try:
        os.rmdir(os.path.join(user_dir(), cluster))
    except OSError:
        pass  # the launcher's orphan logs still live there
