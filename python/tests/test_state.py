"""list_clusters and the ownership checks, on state dirs made by hand (no controller)."""
import json
import os
import socket
import threading

import pytest

import sshcluster
from sshcluster import SSHClusterError


def make_dir(root, name, state=None):
    d = root / "sshcluster" / name
    (d / "logs").mkdir(parents=True, mode=0o700)
    os.chmod(d, 0o700)
    if state is not None:
        (d / "state.json").write_text(json.dumps(state))
    return d


def state_doc(name, sock):
    return {"version": 1, "name": name, "clusterId": "x", "controller": {"pid": 1, "socket": str(sock), "startedAt": ""},
            "schedulerAddress": "tcp://127.0.0.1:1", "dashboardUrl": "http://127.0.0.1:2/status",
            "processes": [{"name": "w-0", "host": "h", "role": "worker"}], "desiredWorkers": 1, "adaptive": None}


@pytest.fixture
def root(tmp_path, monkeypatch):
    os.chmod(tmp_path, 0o700)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    (tmp_path / "sshcluster").mkdir(mode=0o700)
    return tmp_path


def test_gone_and_stopped(root):
    make_dir(root, "dead", state_doc("dead", root / "nothing.sock"))
    make_dir(root, "ended")
    got = {c.name: c for c in sshcluster.list_clusters()}
    assert (got["dead"].state, got["dead"].workers, got["dead"].scheduler_address) == ("gone", 1, "tcp://127.0.0.1:1")
    assert got["ended"].state == "stopped"
    with pytest.raises(SSHClusterError, match='"dead" is gone') as e:
        sshcluster.Cluster("dead")
    assert "up --detach" in e.value.hint
    with pytest.raises(SSHClusterError, match="no cluster is running"):
        sshcluster.Cluster()
    with pytest.raises(SSHClusterError, match=r'no cluster named "nope" \(known: dead, ended\)'):
        sshcluster.Cluster("nope")


def test_refuses_a_dir_others_can_write(root):
    d = make_dir(root, "open", state_doc("open", root / "x.sock"))
    os.chmod(d, 0o770)
    with pytest.raises(SSHClusterError, match="writable by group or others") as e:
        sshcluster.list_clusters()
    assert "chmod go-w" in e.value.hint


def test_refuses_a_symlinked_cluster_dir(root, tmp_path_factory):
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    os.symlink(elsewhere, root / "sshcluster" / "linked")
    with pytest.raises(SSHClusterError, match="is a symlink"):
        sshcluster.Cluster("linked")


def fake_controller(path, reply):
    """Answers every request with reply; for the hello check."""
    srv = socket.socket(socket.AF_UNIX)
    srv.bind(str(path))
    srv.listen()

    def serve():
        while True:
            try:
                conn, _ = srv.accept()
            except OSError:
                return
            f = conn.makefile("rwb")
            for line in f:
                req = json.loads(line)
                f.write((json.dumps({"id": req["id"], **reply}) + "\n").encode())
                f.flush()
    threading.Thread(target=serve, daemon=True).start()
    return srv


def test_refuses_a_protocol_major_it_does_not_speak(root):
    sock = root / "c.sock"
    make_dir(root, "future", state_doc("future", sock))
    srv = fake_controller(sock, {"ok": True, "result": {"protocol": 2, "version": "9.0.0"}})
    try:
        assert [c.state for c in sshcluster.list_clusters()] == ["running"]
        with pytest.raises(SSHClusterError, match=r"speaks control protocol 2 \(sshcluster 9.0.0\); this package .* speaks 1") as e:
            sshcluster.Cluster("future")
        assert "9.0.0" in e.value.hint
    finally:
        srv.close()


def test_an_older_controller_without_hello_is_named(root):
    sock = root / "o.sock"
    make_dir(root, "old", state_doc("old", sock))
    srv = fake_controller(sock, {"ok": False, "error": {"message": 'control protocol: the controller does not know the method "hello"', "exitCode": 1}})
    try:
        with pytest.raises(SSHClusterError, match="older than this package"):
            sshcluster.Cluster("old")
    finally:
        srv.close()


def test_import_sets_dasks_security_loader_unless_one_is_set():
    import subprocess
    import sys

    code = "import sshcluster, dask; print(dask.config.get('distributed.client.security-loader'))"
    env = {k: v for k, v in os.environ.items() if k != "DASK_DISTRIBUTED__CLIENT__SECURITY_LOADER"}
    env["PYTHONPATH"] = os.pathsep.join(sys.path)
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert (r.returncode, r.stdout) == (0, "sshcluster._security.imported_loader\n"), r.stderr
    env["DASK_DISTRIBUTED__CLIENT__SECURITY_LOADER"] = "mine.loader"
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert (r.returncode, r.stdout) == (0, "mine.loader\n"), r.stderr


def test_the_imported_loader_finds_a_clusters_files_and_steps_aside_where_state_is_refused(root, tmp_path_factory):
    from sshcluster._security import imported_loader

    make_dir(root, "plain", state_doc("plain", root / "x.sock"))
    assert imported_loader({"address": "tcp://127.0.0.1:1"}).require_encryption is False
    assert imported_loader({"address": "tls://10.9.9.9:8786"}) is None
    # A refused state dir: a Client of any address still connects with Dask's default.
    os.chmod(root / "sshcluster" / "plain", 0o770)
    with pytest.warns(UserWarning, match="writable by group or others"):
        assert imported_loader({"address": "tcp://127.0.0.1:1"}) is None
