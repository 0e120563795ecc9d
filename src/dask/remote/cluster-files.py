# Removes what a cluster keeps on a host: its files (files.py, which the launcher writes),
# the Dask processes' scratch space (the launcher's with_scratch) and their directory:
#
#   cluster-files remove ID   (nothing there: fine)
#
# Python 3.7 compatible, stdlib only.
import os, stat, sys
# FILES_SUB: files.py; our_dir(), user_dir(), private_dir(), plain_name(): shared.py;
# remote-programs.ts puts both in front.

SCRATCH_SUB = "scratch"


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
                if stat.S_ISDIR(os.stat(name, dir_fd=d, follow_symlinks=False).st_mode):
                    if not remove_flat(d, name):
                        import shutil

                        shutil.rmtree(os.path.join(path, name))
                else:
                    os.unlink(name, dir_fd=d)
        finally:
            os.close(d)
        os.rmdir(path)
    finally:
        os.close(c)


def remove_flat(d, name):
    # A directory of plain files only (the __pycache__ every host has), emptied and removed
    # here through descriptors; False, untouched, when it holds a directory. Importing
    # shutil (re, enum, fnmatch: ~8 of a look's ~20 ms of CPU) is left to deeper trees:
    # 65 hosts' last looks at once on 2 cores paid it ~0.5 s of CPU.
    sub = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=d)
    try:
        names = os.listdir(sub)
        if any(stat.S_ISDIR(os.stat(n, dir_fd=sub, follow_symlinks=False).st_mode) for n in names):
            return False
        for n in names:
            os.unlink(n, dir_fd=sub)
    finally:
        os.close(sub)
    os.rmdir(name, dir_fd=d)
    return True


def remove(cluster):
    try:
        for sub in (FILES_SUB, SCRATCH_SUB):
            remove_sub(cluster, sub)
    except FileNotFoundError:
        return
    try:
        os.rmdir(os.path.join(user_dir(), cluster))
    except OSError:
        pass  # the launcher's orphan logs still live there


def main():
    mode, cluster = sys.argv[1], sys.argv[2]
    if mode != "remove" or not plain_name(cluster):
        sys.stderr.write("usage: sshcluster-files remove ID\n")
        sys.exit(2)
    try:
        remove(cluster)
    except OSError as e:
        sys.stderr.write("sshcluster-files: %s\n" % e)
        sys.exit(1)


main()
