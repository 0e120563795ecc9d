# Removes what a cluster keeps on a host (files.py's remove_cluster_files), where no
# launcher of it did as it ended (a teardown's stop):
#
#   cluster-files remove ID   (nothing there: fine)
#
# Python 3.7 compatible, stdlib only.
import sys
# remove_cluster_files(): files.py; plain_name(): shared.py; remote-programs.ts puts both in front.


def main():
    mode, cluster = sys.argv[1], sys.argv[2]
    if mode != "remove" or not plain_name(cluster):
        sys.stderr.write("usage: sshcluster-files remove ID\n")
        sys.exit(2)
    try:
        remove_cluster_files(cluster)
    except OSError as e:
        sys.stderr.write("sshcluster-files: %s\n" % e)
        sys.exit(1)


main()
