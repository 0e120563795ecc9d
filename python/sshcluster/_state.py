"""This user's clusters, from the CLI's state dirs.

running: a state file and a controller that answers on its socket; gone: a state file
whose controller does not answer (`sshcluster up --detach` re-adopts, `down` cleans up);
stopped: a cluster dir with logs but no state file (a clean `down`).
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from ._control import ControlConnection, ControlError, NoController
from ._errors import SSHClusterError
from ._paths import check_state_dirs, cluster_dir, state_root


@dataclass
class ClusterInfo:
    name: str
    state: str
    scheduler_address: str | None = None
    dashboard_link: str | None = None
    #: Worker processes the controller last recorded (alive ones).
    workers: int = 0
    #: The adaptive settings in force, None at a fixed size.
    adaptive: dict | None = None
    dir: Path | None = field(default=None, repr=False)
    socket: str | None = field(default=None, repr=False)
    run_id: str | None = field(default=None, repr=False)
    cluster_id: str | None = field(default=None, repr=False)
    #: Why the state file could not be used, when so.
    error: str | None = None


def read_state(d: Path) -> dict | None:
    try:
        text = (d / "state.json").read_text()
    except FileNotFoundError:
        return None
    state = json.loads(text)
    if not isinstance(state, dict) or state.get("version") != 1 or state.get("name") != d.name:
        raise SSHClusterError(f"{d / 'state.json'}: not a state file this package reads (version 1, name {d.name})")
    return state


def answers(sock: str | None, name: str) -> bool:
    if not sock:
        return False
    try:
        c = ControlConnection(sock, name, timeout=0.5)
    except (NoController, OSError):
        return False
    try:
        c.call("hello", timeout=0.5)
        return True
    except ControlError:
        return True  # it answered (an older controller without hello: attaching says so)
    except (OSError, SSHClusterError, ValueError):
        return False
    finally:
        c.close()


def cluster_info(name: str, root: Path | None = None, probe: bool = True) -> ClusterInfo | None:
    """None when there is no such cluster dir."""
    root = root or state_root()
    d = cluster_dir(name, root)
    check_state_dirs(root, [d, d / "logs"])
    if not d.is_dir():
        return None
    try:
        state = read_state(d)
    except (ValueError, SSHClusterError) as e:
        return ClusterInfo(name, "gone", dir=d, error=str(e))
    if state is None:
        return ClusterInfo(name, "stopped", dir=d)
    sock = (state.get("controller") or {}).get("socket")
    running = answers(sock, name) if probe else bool(sock)
    workers = sum(1 for p in state.get("processes", []) if p.get("role") == "worker")
    return ClusterInfo(
        name, "running" if running else "gone",
        scheduler_address=state.get("schedulerAddress"), dashboard_link=state.get("dashboardUrl"),
        workers=workers, adaptive=state.get("adaptive"), dir=d, socket=sock,
        run_id=state.get("runId"), cluster_id=state.get("clusterId"))


def list_clusters(root: Path | None = None, probe: bool = True) -> list[ClusterInfo]:
    """This user's clusters, by name: running, gone or stopped."""
    root = root or state_root()
    check_state_dirs(root)
    try:
        names = sorted(e.name for e in os.scandir(root) if e.is_dir(follow_symlinks=False))
    except FileNotFoundError:
        return []
    found = (cluster_info(n, root, probe) for n in names)
    return [c for c in found if c is not None]


def name_from_env(env) -> str | None:
    """The cluster the environment names: $SSHCLUSTER_CLUSTER in one of a cluster's own
    processes (a task on a worker), else $SSHCLUSTER_NAME. A process an older controller
    started (SSHCLUSTER_ID, no SSHCLUSTER_CLUSTER) had its own name in SSHCLUSTER_NAME."""
    if env.get("SSHCLUSTER_CLUSTER"):
        return env["SSHCLUSTER_CLUSTER"]
    if env.get("SSHCLUSTER_ID"):
        return None
    return env.get("SSHCLUSTER_NAME") or None


def pick_running(name: str | None, env: dict | None = None) -> ClusterInfo:
    """The named cluster, else the environment's (name_from_env), else the only running one."""
    env = os.environ if env is None else env
    name = name or name_from_env(env)
    if name is not None:
        info = cluster_info(name)
        if info is None:
            known = ", ".join(c.name for c in list_clusters()) or "none"
            raise SSHClusterError(f'no cluster named "{name}" (known: {known})',
                                  hint="`sshcluster up --detach` starts one; `sshcluster list` shows them")
        return info
    running = [c for c in list_clusters() if c.state == "running"]
    if len(running) == 1:
        return running[0]
    if not running:
        raise SSHClusterError("no cluster is running",
                              hint="start one with `sshcluster up --detach` (or Cluster(name, hosts=PATH))")
    raise SSHClusterError(f"{len(running)} clusters are running: {', '.join(c.name for c in running)}; which one?",
                          hint="Cluster(name), or set SSHCLUSTER_NAME")
