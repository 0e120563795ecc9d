// The program a new controller runs over SSH, as `python -c KEEPER <pid> <logfile>`,
// for each process it adopts from a dead controller's state file.
//
// It stands in for the launcher's lost channel: it tells the launcher (the parent of
// <pid>) it is adopted (SIGUSR1: stop the orphan timer), speaks the launcher's PID-line
// protocol so the controller handles it like a process it started, and tails the log
// file the launcher writes while orphaned (launcher-relay.ts), from its start. EOF on
// its stdin means this controller is gone too: SIGUSR2 restarts the launcher's orphan
// timer, so a process never outlives its last controller by more than that grace.
// It exits 0 once <pid> is gone, after the launcher has flushed its last lines.
// The launcher is only signalled when its command line is our launcher (a default
// SIGUSR1 would kill an unrelated process, or an older launcher without the handler).
// Python 3.7 compatible; no single quotes (see launcher.ts).
import { LAUNCHER_PID_PREFIX, ORPHAN_GRACE_ENV } from './launcher.js';

export const KEEPER = `import os, signal, sys, threading, time
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
def launcher_of(pid):
    f = fields(pid)
    if f is None:
        return None
    ppid = int(f[1])
    try:
        with open("/proc/%d/cmdline" % ppid, "rb") as f:
            args = f.read().split(b"\\0")
    except OSError:
        return None
    ours = len(args) > 2 and args[1] == b"-c" and b"${ORPHAN_GRACE_ENV}" in args[2]
    return ppid if ppid > 1 and ours else None
try:
    child, path = int(sys.argv[1]), sys.argv[2]
except (IndexError, ValueError):
    sys.stderr.write("usage: sshcluster-keeper PID LOGFILE\\n")
    sys.exit(2)
f = fields(child)
if f is None or f[0] == b"Z" or int(f[2]) != child:
    sys.stderr.write("sshcluster-keeper: process %d is not running\\n" % child)
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
tell(signal.SIGUSR1)
sys.stdout.write("${LAUNCHER_PID_PREFIX} %d\\n" % child)
sys.stdout.flush()
if launcher is None:
    sys.stderr.write("sshcluster-keeper: the launcher of %d is gone; its output cannot be shown\\n" % child)
    sys.stderr.flush()
def watch_stdin():
    try:
        while os.read(0, 65536):
            pass
    except OSError:
        pass
    orphaned_again()
threading.Thread(target=watch_stdin, daemon=True).start()
tail = {"fd": None, "pos": 0}
def drain():
    try:
        if tail["fd"] is None:
            tail["fd"] = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
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
`;
