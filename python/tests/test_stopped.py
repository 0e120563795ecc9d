"""A handle whose cluster `sshcluster down` stopped from the command line meanwhile: its
run's logs stay readable, and its calls say the cluster stopped. A cluster of its own
(the shared one must stay up)."""
import pytest
from conftest import cli

import sshcluster
from sshcluster import SSHClusterError
from sshcluster._state import cluster_info


@pytest.fixture(scope="module")
def stopped():
    r = cli("up", "--detach", "--name", "pytest-stopped", "--nworkers", "1", check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    c = sshcluster.Cluster("pytest-stopped")
    before = c.get_logs()
    r = cli("down", "--name", "pytest-stopped", check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    assert cluster_info("pytest-stopped").state == "stopped"
    yield c, before
    c.close()


def test_get_logs_keeps_the_run_after_the_cluster_stopped(stopped):
    c, before = stopped
    assert {"Cluster", "scheduler", "localhost-0"} <= set(before)
    logs = c.get_logs()
    # Was only {"Cluster"}: the run was looked up in the state file, which `down` removes.
    assert {"Cluster", "scheduler", "localhost-0"} <= set(logs), list(logs)
    assert logs["scheduler"].startswith(before["scheduler"])


@pytest.mark.parametrize("call", [lambda c: c.scale(1), lambda c: c.adapt(minimum=0, maximum=1),
                                  lambda c: c.status_document()])
def test_a_call_on_a_stopped_cluster_says_it_stopped(stopped, call):
    c, _ = stopped
    # Was BrokenPipeError: [Errno 32] Broken pipe, from the control socket.
    with pytest.raises(SSHClusterError, match="cluster pytest-stopped was stopped") as e:
        call(c)
    assert "sshcluster.Cluster('pytest-stopped', hosts=" in e.value.hint


def test_the_widget_says_the_cluster_stopped(stopped):
    c, _ = stopped
    # Was only the type of the error: "controller status unavailable: BrokenPipeError".
    assert "controller status unavailable: cluster pytest-stopped was stopped (sshcluster down)" in c._repr_html_()


def test_a_handle_is_named_by_the_cluster_it_attached_to_not_the_schedulers_metadata(shared):
    from distributed import Client

    # What a handle left over from a stopped cluster does to the next cluster on the same
    # address (a local cluster's 8786): Dask's periodic sync writes its name there.
    with Client(cluster_info(shared).scheduler_address) as client:
        client.set_metadata(["cluster-manager-info"], {"name": "pytest-stopped", "type": "sshcluster.cluster.Cluster"})
    c = sshcluster.Cluster(shared)
    try:
        # Was "pytest-stopped": Dask's Cluster._start takes the name from that metadata.
        assert c.name == shared
        assert repr(c).startswith(f"Cluster({shared}, ")
    finally:
        c.close()


def test_a_call_whose_controller_was_killed_says_so():
    import os
    import signal
    import time

    r = cli("up", "--detach", "--name", "pytest-orphan", "--nworkers", "1", check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    c = sshcluster.Cluster("pytest-orphan")
    try:
        os.kill(c.status_document()["controllerPid"], signal.SIGKILL)
        deadline = time.monotonic() + 30
        while cluster_info("pytest-orphan").state != "gone" and time.monotonic() < deadline:
            time.sleep(0.05)
        # Was BrokenPipeError: [Errno 32] Broken pipe.
        with pytest.raises(SSHClusterError, match="the controller of cluster pytest-orphan is gone") as e:
            c.scale(1)
        assert "sshcluster down" in e.value.hint
        r = cli("up", "--detach", "--name", "pytest-orphan", check=False)  # re-adopts what runs
        assert r.returncode == 0, r.stdout + r.stderr
        # Was "the controller … closed the connection; it may have stopped".
        with pytest.raises(SSHClusterError, match="cluster pytest-orphan has a new controller") as e:
            c.scale(1)
        assert "sshcluster.Cluster('pytest-orphan')" in e.value.hint
    finally:
        c.close()
        cli("down", "--name", "pytest-orphan", check=False)


def test_shutdown_lets_its_clients_close_instead_of_reconnecting():
    import inspect
    import time

    from distributed import Client
    from distributed.core import Status

    c = sshcluster.Cluster("pytest-shutdown", hosts="local")
    client = Client(c)
    seen = []
    call = c._control.call

    def spy(method, *args, **kwargs):
        if method == "down":
            seen.append(c.status)
        return call(method, *args, **kwargs)

    c._control.call = spy
    try:
        assert c.shutdown()["leftover"] == []  # (a worker "forced" by its grace once, under load)
        # Was Status.running: a Client(cluster) saw its scheduler go while the cluster ran,
        # and kept reconnecting (a traceback at exit). LocalCluster.close() says closing first.
        assert seen == [Status.closing]
        if "Status.closing" in inspect.getsource(Client._handle_report):  # Dask 2023.x and later
            deadline = time.monotonic() + 30
            while client.status != "closed" and time.monotonic() < deadline:
                time.sleep(0.05)
            assert client.status == "closed"
    finally:
        client.close()
        c.close()


def test_a_lost_controller_is_said_even_where_the_state_dirs_are_refused(shared, monkeypatch):
    import sshcluster.cluster as cluster_module
    from sshcluster._control import ConnectionClosed

    c = sshcluster.Cluster(shared)

    def closed(*args, **kwargs):
        raise ConnectionClosed(f"the controller of cluster {shared} closed the connection")

    def refused(*args, **kwargs):
        raise SSHClusterError("state dir refused: others can write to it")

    try:
        monkeypatch.setattr(c._control, "call", closed)
        monkeypatch.setattr(cluster_module, "cluster_info", refused)
        # Was the state dir's refusal, raised while saying why the call failed.
        with pytest.raises(ConnectionClosed, match="closed the connection"):
            c.scale(1)
    finally:
        monkeypatch.undo()
        c.close()
