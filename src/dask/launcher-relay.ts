// The launcher's output relay, a fragment of the LAUNCHER program (see launcher.ts).
//
// Why relay instead of letting the child inherit the SSH channel: once the channel is
// gone (the controller died) the output of an orphaned process would be lost, and a
// controller that adopts it later has nothing to show. So the child writes into pipes;
// per stream one thread reads lines into a bounded buffer (the child never waits on
// us) and one writes them out: to the channel while it lives, and after stdin EOF or a
// failed write, when orphaning is enabled, appended to a per-process log file a keeper
// (keeper.ts) tails. A full buffer drops lines and says how many bytes it dropped.
// The log is truncated to 0 when it would pass LOG_CAP, and removed at exit unless
// the orphan timer ran out (then it is the only record of what happened).
// Python 3.7 compatible; no single quotes (see launcher.ts).

/** Where an orphaned process's output goes: ${TMPDIR:-/tmp}/sshcluster-<uid>/<id>/<name>.log. */
export const LOG_DIR_PREFIX = 'sshcluster-';
/** Bytes kept in memory per stream before lines are dropped. */
export const RELAY_BUFFER_BYTES = 4 << 20;
/** An orphan log larger than this starts again from empty. */
export const ORPHAN_LOG_CAP_BYTES = 8 << 20;

/** Characters other than these become `_` in the log file's path components. */
export function safePathPart(text: string): string {
  return text.replace(/[^A-Za-z0-9._-]/g, '_') || '_';
}

export const LAUNCHER_RELAY = `LOG_CAP = ${ORPHAN_LOG_CAP_BYTES}
BUFFER_CAP = ${RELAY_BUFFER_BYTES}
log = {"fd": None, "path": None, "dir": None}
log_lock = threading.Lock()
def safe(text):
    return re.sub("[^A-Za-z0-9._-]", "_", text) or "_"
def open_log():
    base = os.path.join(os.environ.get("TMPDIR") or "/tmp", "${LOG_DIR_PREFIX}%d" % os.getuid())
    cluster = os.path.join(base, safe(os.environ.get("SSHCLUSTER_ID") or "none"))
    for d in (base, cluster):
        try:
            os.mkdir(d, 0o700)
        except FileExistsError:
            pass
        st = os.lstat(d)
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid():
            raise OSError("not our directory: " + d)
        os.chmod(d, 0o700)
    path = os.path.join(cluster, safe(os.environ.get("SSHCLUSTER_NAME") or str(pid)) + ".log")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND | os.O_NOFOLLOW, 0o600)
    log["path"], log["dir"] = path, cluster
    return fd
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
                emit(dst, b"sshcluster-launcher: output came faster than it could be sent; dropped %d bytes\\n" % dropped)
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
        if state["expired"]:
            return
        try:
            os.unlink(log["path"])
            os.rmdir(log["dir"])
        except OSError:
            pass
`;
