// The parent of every remote Dask process, run as `python -c LAUNCHER argv…`.
//
// Why a launcher at all: OpenSSH does not reliably deliver channel signals, and a
// dropped SSH session does not kill a daemonised process tree. So the child runs in
// its own session/process group (one `killpg` reaches the nanny and its worker), its
// PID is reported on stdout before anything else, and EOF on our stdin (the SSH
// channel closed or the controller died) stops the whole group: SIGTERM, then SIGKILL
// after SSHCLUSTER_GRACE seconds. The exit code is the child's (128+N if signalled).
//
// Orphaning: with SSHCLUSTER_ORPHAN_GRACE > 0 (the detached controller sets it), stdin
// EOF does not stop the group at once: the process waits that long for a new
// controller. SIGUSR1 ("adopted", sent by the keeper) cancels the wait for good until
// SIGUSR2 ("orphaned again") restarts it; when it runs out the group is stopped. The
// child's output is relayed (launcher-relay.ts) so it survives the channel.
//
// The PID line is always the first line on stdout: it is printed once the child has
// its own process group and before the child may exec (and write). An exec failure
// comes back over a close-on-exec pipe: message on stderr, exit 127. A signal that
// arrives before the group exists is held until it does.
// Python 3.7 compatible; no single quotes, so it stays readable inside sh quoting.
import { LAUNCHER_RELAY } from './launcher-relay.js';

/** Prefix of the one line the launcher prints on stdout. */
export const LAUNCHER_PID_PREFIX = '__SSHCLUSTER_PID__';

/** Environment variable with the stop grace period in seconds (default 10). */
export const LAUNCHER_GRACE_ENV = 'SSHCLUSTER_GRACE';

/** Seconds an orphaned process waits for a new controller (default 0: stop at once). */
export const ORPHAN_GRACE_ENV = 'SSHCLUSTER_ORPHAN_GRACE';

export const LAUNCHER = `import collections, os, re, signal, stat, sys, threading, time
argv = sys.argv[1:]
if not argv:
    sys.stderr.write("sshcluster-launcher: no command given\\n")
    sys.exit(2)
def seconds(name, default):
    try:
        return float(os.environ.get(name) or default)
    except ValueError:
        return float(default)
grace = seconds("${LAUNCHER_GRACE_ENV}", 10)
orphan_grace = seconds("${ORPHAN_GRACE_ENV}", 0)
r, w = os.pipe()
go_r, go_w = os.pipe()
out_r, out_w = os.pipe()
err_r, err_w = os.pipe()
pid = os.fork()
if pid == 0:
    try:
        for fd in (r, go_w, out_r, err_r):
            os.close(fd)
        os.setsid()
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(out_w, 1)
        os.dup2(err_w, 2)
        for s in (signal.SIGPIPE, signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(s, signal.SIG_DFL)
        os.write(w, b"+")
        os.read(go_r, 1)
        os.execvp(argv[0], argv)
    except BaseException as e:
        os.write(w, ("%s: %s" % (argv[0], e)).encode("utf-8", "replace"))
    os._exit(127)
for fd in (w, go_r, out_w, err_w):
    os.close(fd)
lock = threading.Lock()
started = []
finished = threading.Event()
ready = []
requested = []
state = {"orphaned": False, "adopted": False, "deadline": None, "to_log": False, "expired": False}
${LAUNCHER_RELAY}
def send(sig):
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        return False
    return True
def stop():
    with lock:
        if started:
            return
        started.append(1)
    if send(signal.SIGTERM):
        deadline = time.time() + grace
        while time.time() < deadline and send(0):
            time.sleep(0.05)
        send(signal.SIGKILL)
    finished.set()
def stop_async():
    threading.Thread(target=stop, daemon=True).start()
def on_signal(*_):
    if ready:
        stop_async()
    else:
        requested.append(1)
def on_adopted(*_):
    state["adopted"] = True
    state["deadline"] = None
def on_orphaned_again(*_):
    if state["orphaned"]:
        state["adopted"] = False
        state["deadline"] = time.time() + orphan_grace
def wait_for_adoption():
    state["to_log"] = True
    state["orphaned"] = True
    # Adopted before the old channel closed (a stale session sshd kept open): the
    # keeper now watches over it, so that late EOF must not start a countdown.
    if not state["adopted"]:
        state["deadline"] = time.time() + orphan_grace
    while not finished.is_set():
        deadline = state["deadline"]
        if deadline is not None and time.time() >= deadline:
            state["expired"] = True
            to_log(b"sshcluster-launcher: no controller adopted this process within %g s; stopping it\\n" % orphan_grace)
            stop()
            return
        time.sleep(0.1)
def watch_stdin():
    try:
        while os.read(0, 65536):
            pass
    except OSError:
        pass
    if orphan_grace > 0:
        wait_for_adoption()
    else:
        stop()
for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
    signal.signal(s, on_signal)
signal.signal(signal.SIGUSR1, on_adopted)
signal.signal(signal.SIGUSR2, on_orphaned_again)
relays = []
failure = os.read(r, 1)
if failure == b"+":
    failure = b""
    sys.stdout.write("${LAUNCHER_PID_PREFIX} %d\\n" % pid)
    sys.stdout.flush()
    ready.append(1)
    relays = [relay(out_r, 1), relay(err_r, 2)]
    threading.Thread(target=watch_stdin, daemon=True).start()
    if requested:
        stop_async()
os.close(go_w)
while True:
    chunk = os.read(r, 4096)
    if not chunk:
        break
    failure += chunk
os.close(r)
if failure:
    emit(2, b"sshcluster-launcher: cannot run " + failure + b"\\n")
while True:
    try:
        _, status = os.waitpid(pid, 0)
        break
    except ChildProcessError:
        status = 127 << 8
        break
if os.WIFSIGNALED(status):
    code = 128 + os.WTERMSIG(status)
else:
    code = os.WEXITSTATUS(status)
stop()
finished.wait()
for t in relays:
    t.join(5)
close_log()
os._exit(code)
`;
