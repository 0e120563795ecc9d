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
