"""The Python handle's costs: sshcluster.Cluster(name) attach time and get_logs() on a
run with --log-mb MB of worker output (default 5). Not a test: prints figures.

    npm run build && /usr/bin/python3 bench/py/python_handle.py   # --rounds 20 --log-mb 5

A local cluster (`sshcluster up --detach`, 2 workers) in a private XDG_STATE_HOME, taken
down at the end. Attach is timed two ways: in this process with distributed already
imported (what a notebook's second cell pays), and in fresh processes from the first
line (import sshcluster + attach, the import timed apart). The log volume is printed by
tasks (lines of 1,000 bytes, paced under the controller's per-process rate cap) and counted in the run's log files before get_logs() is timed.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CLI = os.environ.get("SSHCLUSTER_CLI") or str(REPO / "bin" / "sshcluster")
sys.path.insert(0, str(REPO / "python"))
NAME = "bench-pyhandle"

COLD = """
import time, sys
t0 = time.perf_counter()
sys.path.insert(0, {path!r})
import sshcluster
t1 = time.perf_counter()
c = sshcluster.Cluster({name!r})
t2 = time.perf_counter()
c.close()
print(t1 - t0, t2 - t1)
"""


def cli(*args: str) -> subprocess.CompletedProcess:
    r = subprocess.run([CLI, *args], capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=300)
    if r.returncode != 0:
        raise SystemExit(f"sshcluster {' '.join(args)} exited {r.returncode}:\n{r.stdout}{r.stderr}")
    return r


def row(label: str, xs: list[float], unit: str = "s") -> str:
    return f"{label:<52} {statistics.median(xs):8.3f}{unit} {min(xs):8.3f}{unit} {max(xs):8.3f}{unit}  n={len(xs)}"


def run_log_bytes(info) -> int:
    run = info.dir / "logs" / (info.run_id or "")
    return sum(f.stat().st_size for f in run.iterdir() if f.is_file()) if run.is_dir() else 0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--log-mb", type=float, default=5)
    a = ap.parse_args()
    state = tempfile.mkdtemp(prefix="sshcluster-bench-py-")
    os.chmod(state, 0o700)
    os.environ["XDG_STATE_HOME"] = state
    os.environ.pop("SSHCLUSTER_NAME", None)
    import distributed
    from distributed import Client

    import sshcluster
    from sshcluster._state import cluster_info

    print(f"python {sys.version.split()[0]}, distributed {distributed.__version__}, sshcluster {sshcluster.__version__}, "
          f"nproc {os.cpu_count()}, load {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    cli("up", "--detach", "--name", NAME)
    try:
        warm = []
        for _ in range(a.rounds):
            t = time.perf_counter()
            c = sshcluster.Cluster(NAME)
            warm.append(time.perf_counter() - t)
            c.close()
        imports, cold = [], []
        for _ in range(max(3, a.rounds // 4)):
            out = subprocess.run([sys.executable, "-W", "ignore", "-c", COLD.format(path=str(REPO / "python"), name=NAME)],
                                 capture_output=True, text=True, check=True, timeout=120).stdout.split()
            imports.append(float(out[0]))
            cold.append(float(out[1]))

        c = sshcluster.Cluster(NAME)
        target = int(a.log_mb * 1_000_000)
        with Client(c) as client:
            # print() adds the newline: 1,000 bytes a line, 400 lines (400 kB) a second
            # per task, under what the controller keeps of a process's output (1,000
            # lines or 512 KiB a second; more is dropped and said so).
            line = "x" * 999
            per_task = 400
            n = -(-target // (per_task * 1000))

            def noisy(i, k=per_task, text=line):
                for j in range(k):
                    print(text)
                    if j % 40 == 39:
                        time.sleep(0.1)
                return i

            client.gather(client.map(noisy, range(n), pure=False))
        info = cluster_info(NAME)
        deadline = time.monotonic() + 60
        while run_log_bytes(info) < target and time.monotonic() < deadline:
            time.sleep(0.2)  # the controller writes the lines as they arrive
        size = run_log_bytes(info)
        reads, total = [], 0
        for _ in range(max(3, a.rounds // 4)):
            t = time.perf_counter()
            logs = c.get_logs()
            reads.append(time.perf_counter() - t)
            total = sum(len(v) for v in logs.values())
        c.close()
        print(f"{'measure':<52} {'median':>9} {'min':>9} {'max':>9}")
        print(row("Cluster(name) attach, distributed imported", warm))
        print(row("fresh process: import sshcluster (+ distributed)", imports))
        print(row("fresh process: Cluster(name) after the import", cold))
        print(row(f"get_logs(), run logs {size / 1e6:.1f} MB on disk", reads))
        print(json.dumps({"attach_warm_median_s": statistics.median(warm), "attach_cold_median_s": statistics.median(cold),
                          "get_logs_median_s": statistics.median(reads), "log_bytes": size, "get_logs_chars": total}))
        return 0 if statistics.median(warm) < 0.2 else 1
    finally:
        cli("down", "--name", NAME)
        shutil.rmtree(state, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
