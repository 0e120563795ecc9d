# sshcluster-launcher [--files=SIZE] NAME COMMAND [ARG...]: the parent of every remote
# Dask process. With --files, it first writes the files the process names (with_files).
#
# Why a launcher at all: OpenSSH does not reliably deliver channel signals, and a
# dropped SSH session does not kill a daemonised process tree. So the child runs in
# its own session/process group (one killpg reaches the nanny and its worker), its
# PID is reported on stdout before anything else, and EOF on our stdin (the SSH
# channel closed or the controller died) stops the whole group: SIGTERM, then SIGKILL
# after SSHCLUSTER_GRACE seconds. The exit code is the child's (128+N if signalled).
# A line TERM or KILL on stdin sends that signal to the group: how the controller stops
# a process without a new exec (shared.py, until_stdin_closes). DOWN TOKEN is the
# teardown's TERM: once the group has ended and nothing else of the cluster runs on this
# host, the launcher removes the cluster's files and scratch space and says so as its
# last line, "__SSHCLUSTER_CLEAN__ TOKEN" (remove_if_last): the look at the host that
# the teardown would open a shell for is done. TOKEN, which only the controller and this
# stdin know, keeps the child's output from saying it.
#
# Orphaning: with SSHCLUSTER_ORPHAN_GRACE > 0 (the detached controller sets it), stdin
# EOF does not stop the group at once: the process waits that long for a new
# controller. SIGUSR1 ("adopted", sent by the keeper) cancels the wait for good until
# SIGUSR2 ("orphaned again") restarts it; when it runs out the group is stopped.
#
# The PID line is always the first line on stdout: it is printed once the child has
# its own process group and before the child may exec (and write). An exec failure
# comes back over a close-on-exec pipe: message on stderr, exit 127. A signal that
# arrives before the group exists is held until it does.
#
# Output relay. Why relay instead of letting the child inherit the SSH channel: once
# the channel is gone (the controller died) the output of an orphaned process would be
# lost, and a controller that adopts it later has nothing to show. So the child writes
# into pipes; per stream one thread reads lines into a bounded buffer (the child never
# waits on us) and one writes them out: to the channel while it lives, and after stdin
# EOF or a failed write, when orphaning is enabled, appended to a per-process log file
# that the keeper (keeper.py) tails: ${TMPDIR:-/tmp}/sshcluster-<uid>/<SSHCLUSTER_ID>/
# <NAME>.log, in directories we own with mode 0700 (anything else is refused and
# nothing is written). A full buffer drops lines and says how many bytes it dropped.
# The log is truncated to 0 when it would pass LOG_CAP, and removed at exit unless the
# orphan timer ran out (then it is the only record of what happened).
#
# NAME is the process's name (ps shows "sshcluster-launcher [--files=SIZE] NAME dask ...";
# the keeper recognises a launcher by its program name). Python 3.7 compatible, stdlib only.
# Past 200 lines on purpose: the relay shares the launcher's state (its child, the
# orphan flags), so they are one program in one file, shipped and run as one.
import errno, os, stat, sys, time
# NotOurs, our_dir(), user_dir(), until_stdin_closes(), read_exact(), safe(), plain_name():
# shared.py; put_files(), remove_cluster_files(), SCRATCH_SUB: files.py; remote-programs.ts
# puts both in front.

PID_PREFIX = "__SSHCLUSTER_PID__"
CLEAN_PREFIX = b"__SSHCLUSTER_CLEAN__"
# What `dask worker` and `dask scheduler` log last, once their event loop has ended
# (distributed/cli, 2022.12 and 2024.12 alike; dask-env.ts pins the log format). At a
# teardown (DOWN) all that follows is the interpreter's own shutdown, ~0.1 s of CPU a
# process that nothing of ours needs (64 of them took ~3 s on 2 cores): the group is
# killed at that line instead. The cluster's scratch space goes with its files.
LAST_LINES = (b" - INFO - End worker", b" - INFO - End scheduler")
LOG_CAP = 8 << 20
BUFFER_CAP = 4 << 20


def seconds(name, default):
    try:
        return float(os.environ.get(name) or default)
    except ValueError:
        return float(default)


FILES_TOKEN = "@sshcluster-files@/"


def files_failed(why):
    # Before the PID line: the process never ran. The controller shows this line as the
    # reason (dask/diagnose.ts), not the 127 of an exec that failed.
    sys.stderr.write("sshcluster-launcher: cannot write the cluster's files: %s\n" % why)
    sys.exit(127)


def with_files(option, argv):
    # --files=SIZE: SIZE bytes of stdin, before anything else there, are the files the
    # process needs (files.py); each argument that starts with FILES_TOKEN then names one
    # of them. Unwritten, the process does not start, except with --optional-files=SIZE:
    # then it starts without them, each such argument dropped with the option before it.
    # Fewer than SIZE bytes (stdin at its end): it never starts.
    size = int(option.split("=", 1)[1])
    raw = read_exact(size)
    if len(raw) != size:
        files_failed("only %d of %d bytes of them arrived" % (len(raw), size))
    cluster = os.environ.get("SSHCLUSTER_ID") or ""
    try:
        if not plain_name(cluster):
            raise ValueError("not a cluster id: %r" % cluster)
        path = put_files(cluster, raw)
    except (OSError, ValueError) as e:
        if not option.startswith("--optional-files="):
            files_failed(e)
        sys.stderr.write("sshcluster-launcher: %s starts without the cluster's files (%s)\n" % (name, e))
        kept = []
        for a in argv:
            if a.startswith(FILES_TOKEN):
                if kept and kept[-1].startswith("-"):
                    kept.pop()
            else:
                kept.append(a)
        return kept
    return [path + "/" + a[len(FILES_TOKEN):] if a.startswith(FILES_TOKEN) else a for a in argv]


def preloads_by_name(argv):
    # Dask copies a preload given as a .py path into its local directory
    # (preloading._import_module) and, a nanny, leaves it there when it ends. A module
    # name it imports where it is: so the scheduler, the nanny and the worker get the
    # name, and the file's directory (ours: the cluster's files, or the local copies'
    # preload/) goes first on their PYTHONPATH, which a nanny's worker inherits.
    out, dirs = [], []
    for i, a in enumerate(argv):
        if i and argv[i - 1] in ("--preload", "--preload-nanny") and a.endswith(".py") and "/" in a:
            d, a = a.rsplit("/", 1)
            a = a[:-3]
            if d not in dirs:
                dirs.append(d)
        out.append(a)
    if dirs:
        old = os.environ.get("PYTHONPATH")
        os.environ["PYTHONPATH"] = os.pathsep.join(dirs + ([old] if old else []))
    return out


SCRATCH_TOKEN = "@sshcluster-scratch@"
SCRATCH_ENV = "DASK_TEMPORARY_DIRECTORY"


def cluster_scratch():
    # ${TMPDIR:-/tmp}/sshcluster-<uid>/<SSHCLUSTER_ID>/scratch, each level checked as the
    # cluster's files are (private_dir); cluster-files.py removes it at teardown.
    cluster = os.environ.get("SSHCLUSTER_ID") or ""
    if not plain_name(cluster):
        raise ValueError("not a cluster id: %r" % cluster)
    c = our_dir(cluster)
    try:
        os.close(private_dir(SCRATCH_SUB, os.path.join(user_dir(), cluster, SCRATCH_SUB), at=c))
    finally:
        os.close(c)
    return os.path.join(user_dir(), cluster, SCRATCH_SUB)


def with_scratch(argv):
    # Dask's default scratch space, $TMPDIR/dask-worker-space (dask-scratch-space), is
    # reused by Dask whoever made it, and a worker puts its subdirectory first on
    # sys.path: another user of the host who made it first runs code as ours. So a process
    # whose argv (--local-directory) or DASK_TEMPORARY_DIRECTORY (the scheduler, which has
    # no such flag) names SCRATCH_TOKEN gets the cluster's own directory there. When that
    # is not ours (a planted directory), a fresh 0700 one under a name nobody had, which
    # the launcher removes when the process ends. Returns (argv, directory to remove).
    if os.environ.get(SCRATCH_ENV) != SCRATCH_TOKEN and SCRATCH_TOKEN not in argv:
        return argv, None
    temporary = None
    try:
        path = cluster_scratch()
    except (OSError, ValueError) as e:
        base = os.path.abspath(os.environ.get("TMPDIR") or "/tmp")
        path = os.path.join(base, "sshcluster-scratch-%d-%s" % (os.getuid(), os.urandom(8).hex()))
        try:
            os.mkdir(path, 0o700)
        except OSError as e2:
            sys.stderr.write("sshcluster-launcher: cannot make a scratch directory: %s; %s\n" % (e, e2))
            sys.exit(127)
        sys.stderr.write("sshcluster-launcher: %s keeps its scratch space in %s until it ends (%s)\n" % (name, path, e))
        temporary = path
    if os.environ.get(SCRATCH_ENV) == SCRATCH_TOKEN:
        os.environ[SCRATCH_ENV] = path
    return [path if a == SCRATCH_TOKEN else a for a in argv], temporary


args = sys.argv[1:]
files_option = args.pop(0) if args and args[0].startswith(("--files=", "--optional-files=")) else None
if len(args) < 2:
    sys.stderr.write("usage: sshcluster-launcher [--files=SIZE|--optional-files=SIZE] NAME COMMAND [ARG...]\n")
    sys.exit(2)
name, argv = args[0], args[1:]
if files_option:
    argv = with_files(files_option, argv)
argv = preloads_by_name(argv)
argv, temporary_scratch = with_scratch(argv)
grace = seconds("SSHCLUSTER_GRACE", 10)
orphan_grace = seconds("SSHCLUSTER_ORPHAN_GRACE", 0)
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
ready = []
requested = []
state = {"orphaned": False, "adopted": False, "deadline": None, "to_log": False, "expired": False, "down": None}
log = {"fd": None, "dir": None, "file": None}


def open_log():
    cluster = safe(os.environ.get("SSHCLUSTER_ID") or "none")
    d = our_dir(cluster)
    log["dir"], log["file"], log["base"], log["cluster"] = d, safe(name) + ".log", user_dir(), cluster
    return os.open(log["file"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND | os.O_NOFOLLOW, 0o600, dir_fd=d)


def write_all(fd, data):
    while data:
        data = data[os.write(fd, data):]


def to_log(data):
    with log_lock:
        try:
            if log["fd"] is None:
                log["fd"] = open_log()
            if os.fstat(log["fd"]).st_size + len(data) > LOG_CAP:
                os.ftruncate(log["fd"], 0)
            write_all(log["fd"], data)
        except OSError:
            pass


def emit(fd, data):
    if not state["to_log"]:
        try:
            write_all(fd, data)
            return
        except OSError:
            if orphan_grace <= 0:
                return
            state["to_log"] = True
    to_log(data)


def relay(src, dst):
    chunks = collections.deque()
    st = {"size": 0, "dropped": 0, "eof": False}
    cond = threading.Condition()

    def pump():
        f = os.fdopen(src, "rb")
        while True:
            try:
                line = f.readline(65536)
            except OSError:
                line = b""
            if state["down"] is not None and line.rstrip().endswith(LAST_LINES):
                send(signal.SIGKILL)
            with cond:
                if not line:
                    st["eof"] = True
                elif st["size"] + len(line) > BUFFER_CAP:
                    st["dropped"] += len(line)
                else:
                    chunks.append(line)
                    st["size"] += len(line)
                cond.notify()
            if not line:
                return

    def drain():
        while True:
            with cond:
                while not chunks and not st["eof"] and not st["dropped"]:
                    cond.wait()
                data = b"".join(chunks)
                chunks.clear()
                st["size"] = 0
                dropped, st["dropped"] = st["dropped"], 0
                eof = st["eof"]
            if data:
                emit(dst, data)
            if dropped:
                emit(dst, b"sshcluster-launcher: output came faster than it could be sent; dropped %d bytes\n" % dropped)
            if eof and not data and not dropped:
                return

    threading.Thread(target=pump, daemon=True).start()
    t = threading.Thread(target=drain, daemon=True)
    t.start()
    return t


def close_log():
    with log_lock:
        if log["fd"] is None:
            return
        os.close(log["fd"])
        try:
            if not state["expired"]:
                os.unlink(log["file"], dir_fd=log["dir"])
                os.rmdir(os.path.join(log["base"], log["cluster"]))
        except OSError:
            pass
        os.close(log["dir"])


def send(sig):
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def group_alive():
    # A zombie member is gone for us: once orphaned it waits for init to reap it, which
    # some inits do late (a sandbox's, about once a second) or never (a container whose
    # PID 1 is not an init). The nanny's multiprocessing resource tracker ends so.
    if not send(0):
        return False
    try:
        entries = os.listdir("/proc")
    except OSError:
        return True
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry, "rb") as f:
                text = f.read()
        except OSError:
            continue
        fields = text[text.rindex(b")") + 2:].split()
        if int(fields[2]) == pid and fields[0] != b"Z":
            return True
    return False


def stop():
    with lock:
        if started:
            return
        started.append(1)
    if send(signal.SIGTERM):
        deadline = time.time() + grace
        while time.time() < deadline and group_alive():
            time.sleep(0.05)
        send(signal.SIGKILL)
    finished.set()


def remove_if_last():
    # At a teardown (DOWN): the cluster's files go once no other process carrying both of
    # this one's tags (SSHCLUSTER_ID, SSHCLUSTER_HOST: hosts that share a kernel are told
    # apart by the second, as the controller's scan does) is left; a process still ending
    # may yet use its scratch space. A zombie's environ reads empty. True when nothing is
    # left and the files are gone; otherwise the teardown's last look stops what is left
    # and removes the files (cluster-files.py), and says what failed.
    cluster = os.environ.get("SSHCLUSTER_ID") or ""
    if not plain_name(cluster):
        return False
    tags = [os.fsencode("%s=%s" % (k, os.environ[k])) for k in ("SSHCLUSTER_ID", "SSHCLUSTER_HOST") if k in os.environ]
    me, uid = str(os.getpid()), os.getuid()
    try:
        for entry in os.listdir("/proc"):
            if not entry.isdigit() or entry == me:
                continue
            try:
                if os.stat("/proc/" + entry).st_uid != uid:
                    continue
                with open("/proc/%s/environ" % entry, "rb") as f:
                    env = f.read().split(b"\0")
            except OSError:
                continue
            if all(t in env for t in tags):
                return False
        remove_cluster_files(cluster)
    except OSError:
        return False
    return True


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
            to_log(b"sshcluster-launcher: no controller adopted this process within %g s; stopping it\n" % orphan_grace)
            stop()
            return
        time.sleep(0.1)


def on_down(token):
    state["down"] = token


def watch_stdin():
    until_stdin_closes(send, on_down)
    if orphan_grace > 0:
        wait_for_adoption()
    else:
        stop()


for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
    signal.signal(s, on_signal)
signal.signal(signal.SIGUSR1, on_adopted)
signal.signal(signal.SIGUSR2, on_orphaned_again)
failure = os.read(r, 1)
in_group = failure == b"+"
if in_group:
    failure = b""
    sys.stdout.write("%s %d\n" % (PID_PREFIX, pid))
    sys.stdout.flush()
# The child execs now. What it writes waits in its pipes until the relays below read it:
# threading (and the collections it imports) is ~2 ms of every launch that the Dask
# process need not wait for.
os.close(go_w)
import collections, threading
lock = threading.Lock()
log_lock = threading.Lock()
started = []
finished = threading.Event()
relays = []
if in_group:
    ready.append(1)
    relays = [relay(out_r, 1), relay(err_r, 2)]
    threading.Thread(target=watch_stdin, daemon=True).start()
    if requested:
        stop_async()
while True:
    chunk = os.read(r, 4096)
    if not chunk:
        break
    failure += chunk
os.close(r)
if failure:
    emit(2, b"sshcluster-launcher: cannot run " + failure + b"\n")
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
# Each relay ends at its pipe's EOF: at once, unless something outside the group (a task's
# process in a session of its own) holds the pipe. At a teardown (DOWN) the two share one
# bound of 2 s, for what the group wrote before it ended: 5 s each was the teardown's
# whole 10 s grace, and its worker was then reported killed by force; the host's look
# stops the holder.
relays_until = time.time() + 2
for t in relays:
    t.join(max(0, relays_until - time.time()) if state["down"] is not None else 5)
close_log()
if temporary_scratch:
    import shutil
    shutil.rmtree(temporary_scratch, ignore_errors=True)
if state["down"] is not None and remove_if_last() and state["down"]:
    try:
        write_all(1, b"%s %s\n" % (CLEAN_PREFIX, state["down"]))
    except OSError:
        pass
os._exit(code)
