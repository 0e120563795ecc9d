# Removes what a cluster keeps on a host: its files (files.py, which the launcher writes),
# the Dask processes' scratch space (the launcher's with_scratch) and their directory:
#
#   cluster-files remove ID   (nothing there: fine)
#
# Python 3.7 compatible, stdlib only.
import os, shutil, stat, sys
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
                    shutil.rmtree(os.path.join(path, name))
                else:
                    os.unlink(name, dir_fd=d)
        finally:
            os.close(d)
        os.rmdir(path)
    finally:
        os.close(c)


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
