// The parent of every remote Dask process, run as `python -c LAUNCHER argv…`.
//
// Why a launcher at all: OpenSSH does not reliably deliver channel signals, and a
// dropped SSH session does not kill a daemonised process tree. So the child runs in
// its own session/process group (one `killpg` reaches the nanny and its worker), its
// PID is reported on stdout before anything else, and EOF on our stdin (the SSH
// channel closed or the controller died) stops the whole group: SIGTERM, then SIGKILL
// after SSHCLUSTER_GRACE seconds. The exit code is the child's (128+N if signalled).
//
// The PID line is always the first line on stdout: it is printed once the child has
// its own process group and before the child may exec (and write). An exec failure
// comes back over a close-on-exec pipe: message on stderr, exit 127. A signal that
// arrives before the group exists is held until it does.
// Python 3.7 compatible; no single quotes, so it stays readable inside sh quoting.

/** Prefix of the one line the launcher prints on stdout. */
export const LAUNCHER_PID_PREFIX = '__SSHCLUSTER_PID__';

/** Environment variable with the stop grace period in seconds (default 10). */
export const LAUNCHER_GRACE_ENV = 'SSHCLUSTER_GRACE';

export const LAUNCHER = `import os, signal, sys, threading, time
argv = sys.argv[1:]
if not argv:
    sys.stderr.write("sshcluster-launcher: no command given\\n")
    sys.exit(2)
try:
    grace = float(os.environ.get("${LAUNCHER_GRACE_ENV}") or 10)
except ValueError:
    grace = 10.0
r, w = os.pipe()
go_r, go_w = os.pipe()
pid = os.fork()
if pid == 0:
    try:
        os.close(r)
        os.close(go_w)
        os.setsid()
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        for s in (signal.SIGPIPE, signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(s, signal.SIG_DFL)
        os.write(w, b"+")
        os.read(go_r, 1)
        os.execvp(argv[0], argv)
    except BaseException as e:
        os.write(w, ("%s: %s" % (argv[0], e)).encode("utf-8", "replace"))
    os._exit(127)
os.close(w)
os.close(go_r)
lock = threading.Lock()
started = []
finished = threading.Event()
ready = []
requested = []
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
def watch_stdin():
    try:
        while os.read(0, 65536):
            pass
    except OSError:
        pass
    stop()
for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
    signal.signal(s, on_signal)
failure = os.read(r, 1)
if failure == b"+":
    failure = b""
    sys.stdout.write("${LAUNCHER_PID_PREFIX} %d\\n" % pid)
    sys.stdout.flush()
    ready.append(1)
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
    sys.stderr.write("sshcluster-launcher: cannot run %s\\n" % failure.decode("utf-8", "replace"))
    sys.stderr.flush()
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
sys.stdout.flush()
sys.stderr.flush()
os._exit(code)
`;
