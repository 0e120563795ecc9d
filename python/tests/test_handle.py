"""What a handle says when it is used wrong (a closed handle, a size that is no whole number,
adaptive switched off) and scale() as Dask's takes it. Against the shared local cluster."""
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


@pytest.fixture
def sized(cluster):
    """The shared cluster's worker size (threads, memory limit in bytes); back to 2 workers after."""
    from sshcluster._state import read_state

    [h] = read_state(cluster._info.dir)["spec"]["workerHosts"]
    yield h["workerOptions"]["nthreads"], int(h["workerOptions"]["memoryLimit"])
    cluster.scale(2)


def test_scale_takes_what_dasks_spec_cluster_takes(cluster, sized):
    threads, limit = sized
    # Were TypeErrors: scale() (n required), cores= and memory= (unexpected keywords).
    assert cluster.scale()["desired"] == 0  # SpecCluster.scale(n=0)
    assert cluster.scale(cores=2 * threads)["desired"] == 2
    assert cluster.scale(cores=threads)["desired"] == 1
    assert cluster.scale(memory=limit + 1)["desired"] == 2  # rounded up, as Dask's
    assert cluster.scale(memory=f"{limit} B")["desired"] == 1
    assert cluster.scale(2, cores=threads)["desired"] == 2  # the larger of n and the asks
    assert cluster.scale(n=0, memory="1 kB", cores=0)["desired"] == 1
    assert cluster.status_document()["desiredWorkers"] == 1


@pytest.mark.parametrize("kw, said", [
    (dict(memory="lots"), r"scale\(memory=\): 'lots' is no amount of memory Dask reads .*Could not interpret"),
    (dict(memory="-1 GB"), r"scale\(memory=\): '-1 GB' is negative"),
    (dict(cores=-2), r"scale\(cores=\): cores is a number of threads >= 0, got -2"),
    (dict(cores="4"), r"scale\(cores=\): cores is a number of threads >= 0, got '4'"),
    (dict(n=-1, cores=2), r"scale\(n\): n is a whole number of workers >= 0, got -1"),
])
def test_scale_refuses_a_bad_memory_or_cores_and_changes_nothing(cluster, kw, said):
    before = cluster.status_document()["desiredWorkers"]
    with pytest.raises(ValueError, match=said):
        cluster.scale(**kw)
    assert cluster.status_document()["desiredWorkers"] == before


def test_scale_asynchronous_is_awaited_as_dasks(shared, sized):
    import asyncio

    threads, _ = sized

    async def go():
        c = await sshcluster.Cluster(shared, asynchronous=True)
        try:
            # Was the reply itself, which `await cluster.scale(...)` (Dask's async form,
            # SpecCluster returns an awaitable) refused: "object dict can't be used in 'await'".
            one = (await c.scale(1))["desired"]
            with pytest.raises(ValueError, match=r"scale\(memory=\)"):
                c.scale(memory="lots")  # refused at the call, as in the sync form
            return one, (await c.scale(cores=2 * threads))["desired"]
        finally:
            await c.close()
    assert asyncio.run(go()) == (1, 2)
