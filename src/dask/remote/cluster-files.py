# Removes the files a cluster keeps on a host (files.py, which the launcher writes) and
# their directory:
#
#   cluster-files remove ID   (nothing there: fine)
#
# Python 3.7 compatible, stdlib only.
import os, shutil, stat, sys
# files_dir(): files.py; our_dir(), user_dir(), plain_name(): shared.py; remote-programs.ts puts both in front.


def remove(cluster):
    try:
        d, path = files_dir(cluster, False)
    except FileNotFoundError:
        return
    try:
        for name in os.listdir(d):
            # What a Python that imported a file from here left (__pycache__) goes too;
            # rmtree works on descriptors and follows no symlink.
            if stat.S_ISDIR(os.stat(name, dir_fd=d, follow_symlinks=False).st_mode):
                shutil.rmtree(os.path.join(path, name))
            else:
                os.unlink(name, dir_fd=d)
    finally:
        os.close(d)
    os.rmdir(path)
    try:
        os.rmdir(os.path.dirname(path))
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
