# sshcluster-keeper NAME PID: run by a new controller over SSH for each process it
# adopts from a dead controller's state file (SSHCLUSTER_ID in the environment names
# the cluster).
#
# It stands in for the launcher's lost channel: it tells the launcher (the parent of
# PID) it is adopted (SIGUSR1: stop the orphan timer), speaks the launcher's PID-line
# protocol so the controller handles it like a process it started, and tails the log
# file the launcher writes while orphaned (launcher.py), from its start. EOF on its
# stdin means this controller is gone too: SIGUSR2 restarts the launcher's orphan
# timer, so a process never outlives its last controller by more than that grace.
# A line TERM or KILL on stdin signals PID's process group, as the launcher does.
# It exits 0 once PID is gone, after the launcher has flushed its last lines.
#
# The launcher is only signalled when its command line names our launcher program (a
# default SIGUSR1 would kill an unrelated process, or an older launcher without the
# handler). The log is only read from directories the launcher would have written:
# ours, mode 0700, no symlink (private_dir, the same check as the launcher's). Anything
# else was planted: "sshcluster-keeper: not our directory: ..." on stderr, nothing read.
# Python 3.7 compatible, stdlib only.
import errno, os, signal, stat, sys, threading, time
# NotOurs, our_dir(), until_stdin_closes(), safe(): shared.py, which remote-programs.ts puts in front.

PID_PREFIX = "__SSHCLUSTER_PID__"
LAUNCHER = b"sshcluster-launcher"


def fields(pid):
    try:
        with open("/proc/%d/stat" % pid, "rb") as f:
            text = f.read()
    except OSError:
        return None
    return text[text.rindex(b")") + 2:].split()


def alive(pid):
    f = fields(pid)
    return f is not None and f[0] != b"Z"


def is_launcher(args):
    # Installed: python -S /.../sshcluster-launcher [--files=N] NAME ...; run inline when it
    # could not be installed: python -S -c BOOT sshcluster-launcher SIZE KEY [--files=N] NAME ...
    # (without -S when an earlier version started it).
    args = args[2:] if args[1:2] == [b"-S"] else args[1:]
    if args and os.path.basename(args[0]) == LAUNCHER:
        return True
    return len(args) > 2 and args[0] == b"-c" and args[2] == LAUNCHER


def launcher_of(pid):
    f = fields(pid)
    if f is None:
        return None
    ppid = int(f[1])
    try:
        with open("/proc/%d/cmdline" % ppid, "rb") as f:
            args = f.read().split(b"\0")
    except OSError:
        return None
    return ppid if ppid > 1 and is_launcher(args) else None


try:
    name, child = sys.argv[1], int(sys.argv[2])
except (IndexError, ValueError):
    sys.stderr.write("usage: sshcluster-keeper NAME PID\n")
    sys.exit(2)
f = fields(child)
if f is None or f[0] == b"Z" or int(f[2]) != child:
    sys.stderr.write("sshcluster-keeper: process %d is not running\n" % child)
    sys.exit(3)
launcher = launcher_of(child)


def tell(sig):
    if launcher is not None:
        try:
            os.kill(launcher, sig)
        except OSError:
            pass


def orphaned_again():
    tell(signal.SIGUSR2)
    os._exit(0)


def say(text):
    sys.stderr.write("sshcluster-keeper: %s\n" % text)
    sys.stderr.flush()


tell(signal.SIGUSR1)
sys.stdout.write("%s %d\n" % (PID_PREFIX, child))
sys.stdout.flush()
if launcher is None:
    say("the launcher of %d is gone; its output cannot be shown" % child)


def signal_child(sig):
    try:
        os.killpg(child, sig)
    except OSError:
        try:
            os.kill(child, sig)
        except OSError:
            pass


def watch_stdin():
    until_stdin_closes(signal_child)
    orphaned_again()


threading.Thread(target=watch_stdin, daemon=True).start()
tail = {"fd": None, "pos": 0, "refused": False}


def open_log():
    # The launcher creates the directories only once it has something to write, so a
    # missing one is tried again on the next round; a planted one never is.
    cluster = safe(os.environ.get("SSHCLUSTER_ID") or "none")
    try:
        d = our_dir(cluster, create=False)
        try:
            return os.open(safe(name) + ".log", os.O_RDONLY | os.O_NOFOLLOW, dir_fd=d)
        finally:
            os.close(d)
    except NotOurs as e:
        tail["refused"] = True
        say("%s; the output written while no controller watched is not shown" % e)
    except OSError:
        pass
    return None


def drain():
    try:
        if tail["fd"] is None and not tail["refused"]:
            tail["fd"] = open_log()
        if tail["fd"] is None:
            return
        if os.fstat(tail["fd"]).st_size < tail["pos"]:
            tail["pos"] = 0
        while True:
            data = os.pread(tail["fd"], 65536, tail["pos"])
            if not data:
                return
            tail["pos"] += len(data)
            try:
                while data:
                    data = data[os.write(1, data):]
            except OSError:
                orphaned_again()
    except OSError:
        pass


while alive(child):
    drain()
    time.sleep(0.25)
end = time.time() + 5
while launcher is not None and alive(launcher) and time.time() < end:
    drain()
    time.sleep(0.05)
drain()
os._exit(0)
