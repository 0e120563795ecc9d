"""get_logs from the run's log files (src/control/log-files.ts, log-runs.ts): each
process's whole stdout and stderr, logs/<run id>/<process>.log, rotated ones .1, .2 …
(the oldest has the highest number); the controller's own log is "Cluster"."""
from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

from distributed.utils import Log, Logs

_ROTATED = re.compile(r"^(?P<base>.+)\.log(?:\.(?P<n>\d+))?$")


def run_files(run: Path) -> dict[str, list[Path]]:
    """Process name → its files, oldest first."""
    by_name: dict[str, list[tuple[int, Path]]] = {}
    for f in run.iterdir() if run.is_dir() else ():
        m = _ROTATED.match(f.name)
        if not m or not f.is_file():
            continue
        by_name.setdefault(unquote(m["base"]), []).append((int(m["n"] or 0), f))
    return {name: [p for _, p in sorted(files, key=lambda t: -t[0])] for name, files in by_name.items()}


def read_logs(cluster_dir: Path, run_id: str | None, cluster=True, scheduler=True, workers=True) -> Logs:
    logs = Logs()
    if cluster:
        ctl = cluster_dir / "controller.log"
        logs["Cluster"] = Log(ctl.read_text(errors="replace") if ctl.exists() else "")
    if run_id is None:
        return logs
    wanted = None if workers is True or workers is False else set(workers)
    for name, files in sorted(run_files(cluster_dir / "logs" / run_id).items()):
        if name == "scheduler":
            if not scheduler:
                continue
        elif not workers or (wanted is not None and name not in wanted):
            continue
        logs[name] = Log("".join(f.read_text(errors="replace") for f in files).rstrip("\n"))
    return logs
