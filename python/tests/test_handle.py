"""What a handle says when it is used wrong: a closed handle, a size that is no whole number,
adaptive switched off. Against the shared local cluster."""
import pytest

import sshcluster
from sshcluster import SSHClusterError


@pytest.fixture
def cluster(shared):
    c = sshcluster.Cluster(shared)
    yield c
    c.close()


def test_a_closed_handle_says_it_is_closed_and_the_cluster_keeps_running(shared, cluster):
    cluster.close()
    # Was OSError: [Errno 9] Bad file descriptor from the control socket.
    with pytest.raises(SSHClusterError, match=r"handle is closed.*cluster keeps running") as e:
        cluster.scale(2)
    assert f"sshcluster.Cluster('{shared}')" in e.value.hint
    with pytest.raises(SSHClusterError, match="handle is closed"):
        cluster.adapt(minimum=0, maximum=2)
    with pytest.raises(SSHClusterError, match="handle is closed"):
        cluster.status_document()
    [info] = [c for c in sshcluster.list_clusters() if c.name == shared]
    assert info.state == "running"


@pytest.mark.parametrize("n", [1.5, "abc", "2", None, True, -1])
def test_scale_refuses_what_is_no_whole_number_of_workers(cluster, n):
    before = cluster.status_document()["desiredWorkers"]
    # Was: 1.5 scaled to 1 (int(1.5)), "abc" a bare int() ValueError, "2" taken as 2.
    with pytest.raises(ValueError, match=r"scale\(n\): n is a whole number of workers >= 0, got"):
        cluster.scale(n)
    assert cluster.status_document()["desiredWorkers"] == before


def test_scale_takes_a_whole_float(cluster):
    assert cluster.scale(2.0)["desired"] == 2


def test_wait_for_workers_refuses_a_fraction(cluster):
    with pytest.raises(ValueError, match=r"wait_for_workers\(n_workers\): n_workers is a whole number"):
        cluster.wait_for_workers(1.5)


def test_the_adaptive_view_says_off_once_stopped(cluster):
    ad = cluster.adapt(minimum=1, maximum=2)
    assert "minimum=1 maximum=2" in repr(ad)
    ad.stop()
    # Was "<ControllerAdaptive: minimum=1 maximum=2 target=…>", as if it still ran.
    assert repr(ad).startswith("<ControllerAdaptive: off")
    cluster.close()
    assert repr(ad) == "<ControllerAdaptive: handle closed>"  # a repr never raises


@pytest.mark.parametrize("kw, setting", [(dict(minimum=1.5), "minimum"), (dict(wait_count=0), "wait_count"),
                                         (dict(maximum=2.5), "maximum")])
def test_adapt_refuses_what_the_cli_refuses_and_the_cluster_stays_readable(shared, cluster, kw, setting):
    # Were accepted: minimum 1.5 flapped a worker up and down each step; wait_count=0 went
    # into the state file, which every command then refused ("not a valid state file").
    with pytest.raises(SSHClusterError, match=f"adapt: {setting} must be a whole number"):
        cluster.adapt(**kw)
    [info] = [c for c in sshcluster.list_clusters() if c.name == shared]
    assert info.state == "running", info


def test_adapt_none_is_dasks_default_again(shared, cluster):
    cluster.adapt(minimum=0, maximum=2, wait_count=7)
    cluster.adapt(wait_count=None)  # was: waitCount left unset, the state file refused
    assert cluster.status_document()["adaptive"]["waitCount"] == 3
    [info] = [c for c in sshcluster.list_clusters() if c.name == shared]
    assert info.state == "running" and info.adaptive["waitCount"] == 3, info
    cluster.adapt().stop()


@pytest.mark.parametrize("kw, said", [
    (dict(minimum=5, maximum=2), "adapt: minimum=5 is above maximum=2"),
    (dict(interval="10ms"), "interval=10ms is below the minimum of 100ms"),
    (dict(maximum_cores=0), "maximum_cores=0 is less than one worker's 1 threads"),
])
def test_adapt_errors_name_the_keywords_not_the_cli_flags(cluster, kw, said):
    # Were "--min 5 is above --max 2", "--interval 10ms …", "--maximum-cores 0 …": flags of
    # a command the notebook did not run.
    with pytest.raises(SSHClusterError) as e:
        cluster.adapt(**kw)
    assert e.value.message.startswith(said) or said in e.value.message, e.value.message
    assert "--" not in str(e.value), str(e.value)
