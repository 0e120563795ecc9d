# What a nanny that waits for its scheduler costs in CPU, with sshcluster's scheduler-wait
# preload (src/dask/remote/scheduler_wait.py, probing every 5 ms) as it is, with its
# probes made through Dask's own connector instead (_direct switched off), and with a
# preload that only sleeps (the nanny's own idle cost). No scheduler ever listens: the
# nanny polls a free port on 127.0.0.1 for the whole window.
#
#   /usr/bin/python3 bench/py/scheduler_wait_cpu.py [PRELOAD] [--seconds S] [--rounds N]
#
# PRELOAD defaults to dist/remote/scheduler_wait.py (npm run build). Prints, per variant,
# the nanny's CPU (its /proc stat: every thread) per second of waiting, median of N
# windows of S seconds (default 3 of 5), each in a fresh nanny after "Run preload setup".
import argparse, os, shutil, socket, statistics, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
ap = argparse.ArgumentParser()
ap.add_argument("preload", nargs="?", default=os.path.join(HERE, "..", "..", "dist", "remote", "scheduler_wait.py"))
ap.add_argument("--seconds", type=float, default=5.0)
ap.add_argument("--rounds", type=int, default=3)
a = ap.parse_args()
if not os.path.exists(a.preload):
    sys.exit("no %s: npm run build first, or name the preload" % a.preload)

tmp = tempfile.mkdtemp(prefix="sshc-wait-cpu-")
variants = {}
for label, extra in (("probes with direct connects (as shipped)", ""),
                     ("probes through Dask's connector", "\n_direct = lambda connector, loc: False\n")):
    d = os.path.join(tmp, str(len(variants)))
    os.mkdir(d)
    with open(a.preload) as f, open(os.path.join(d, "scheduler_wait.py"), "w") as g:
        g.write(f.read() + extra)
    variants[label] = os.path.join(d, "scheduler_wait.py")
os.mkdir(os.path.join(tmp, "sleep"))
with open(os.path.join(tmp, "sleep", "scheduler_wait.py"), "w") as g:
    g.write("import asyncio\n\nasync def dask_setup(server):\n    await asyncio.sleep(3600)\n")
variants["no probes (a preload that sleeps)"] = os.path.join(tmp, "sleep", "scheduler_wait.py")


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def cpu_ms(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000.0 / os.sysconf("SC_CLK_TCK")


def window(preload):
    env = dict(os.environ, DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT="3600s", DASK_TEMPORARY_DIRECTORY=tmp)
    p = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", "tcp://127.0.0.1:%d" % free_port(),
                          "--nthreads", "1", "--no-dashboard", "--nanny", "--preload-nanny", preload],
                         env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        for line in p.stderr:
            if "Run preload setup" in line:
                break
        else:
            sys.exit("the nanny exited before its preload ran")
        c0 = cpu_ms(p.pid)
        time.sleep(a.seconds)
        return (cpu_ms(p.pid) - c0) / a.seconds
    finally:
        os.killpg(p.pid, 9)
        p.wait()


try:
    import distributed
    print("distributed %s, python %s; %d window(s) of %.0f s each" % (distributed.__version__, sys.version.split()[0], a.rounds, a.seconds))
    results = {label: [] for label in variants}
    for _ in range(a.rounds):  # alternating: a slow moment falls on every variant
        for label, path in variants.items():
            results[label].append(window(path))
    for label, xs in results.items():
        print("%-44s %5.0f ms of CPU per second of waiting (%s)" % (label, statistics.median(xs), ", ".join("%.0f" % x for x in xs)))
finally:
    shutil.rmtree(tmp, ignore_errors=True)
