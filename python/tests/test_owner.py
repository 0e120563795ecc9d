"""A handle that creates the cluster (hosts=) owns it: close() detaches and leaves it up,
shutdown() is `down`, and a process killed without close() has it taken down after
lease_grace. Two clusters of their own (the shared one must stay up)."""
import os
import signal
import subprocess
import sys
import time

from conftest import REPO

import sshcluster
from sshcluster._state import cluster_info


def wait_state(name, want, timeout=120):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        info = cluster_info(name)
        if info is not None and info.state == want:
            return info
        time.sleep(0.2)
    raise AssertionError(f"{name} not {want} within {timeout}s: {cluster_info(name)}")


def test_close_detaches_and_shutdown_is_down(capsys):
    c = sshcluster.Cluster("pytest-owner", hosts="local", lease_grace="1s")
    assert c.owner
    assert "Cluster up" in capsys.readouterr().out  # up's start-up lines, shown as they come
    attached = sshcluster.Cluster("pytest-owner", hosts="local")  # runs already: attaches
    assert not attached.owner
    attached.close()
    c.close()
    # The lease was released: past its grace the cluster is still up. (Waiting out a grace
    # is the point here: nothing happening is what is checked.)
    time.sleep(3)
    assert cluster_info("pytest-owner").state == "running"
    again = sshcluster.Cluster("pytest-owner")
    result = again.shutdown()
    assert result == {"forced": [], "leftover": []}
    assert again.status.name == "closed"
    assert cluster_info("pytest-owner").state == "stopped"


CHILD = """
import os, signal, sys
sys.path.insert(0, {path!r})
import sshcluster
c = sshcluster.Cluster("pytest-killed", hosts="local", lease_grace="1s")
print("OWNER", c.owner, flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_a_killed_owner_brings_the_cluster_down_after_the_grace():
    child = subprocess.run([sys.executable, "-W", "ignore", "-c", CHILD.format(path=str(REPO / "python"))],
                           capture_output=True, text=True, timeout=300)
    assert child.returncode == -signal.SIGKILL, child.stderr
    assert "OWNER True" in child.stdout
    assert wait_state("pytest-killed", "stopped").state == "stopped"
    log = (cluster_info("pytest-killed").dir / "controller.log").read_text()
    assert "owner lease expired" in log


def test_a_plain_clients_shutdown_is_a_requested_down():
    from conftest import cli
    from distributed import Client

    r = cli("up", "--detach", "--name", "pytest-terminate", check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    address = cluster_info("pytest-terminate").scheduler_address
    with Client(address) as client:
        client.shutdown()
    info = wait_state("pytest-terminate", "stopped")
    log = (info.dir / "controller.log").read_text()
    assert "a client shut the scheduler down (Client.shutdown()); stopping the cluster" in log
    assert "error: the scheduler exited" not in log
    # Asked for: the scheduler is said to have stopped, and nothing tries to retire
    # workers through the scheduler that is gone.
    assert "[localhost] scheduler stopped" in log
    assert "exited unexpectedly" not in log
    assert "warning:" not in log.split("a client shut the scheduler down")[1]
    assert "verified: no process of this cluster is left" in log
