"""Against one real local cluster (`up --detach`): attach, compute, scale, adapt, logs."""
import asyncio
import re
import time

import pytest
from distributed import Client

import sshcluster
from sshcluster import SSHClusterError
from sshcluster.discovery import discover


@pytest.fixture(scope="module")
def cluster(shared):
    c = sshcluster.Cluster(shared)
    yield c
    c.close()


@pytest.fixture(scope="module")
def client(cluster):
    with Client(cluster) as cl:
        yield cl


def test_list_clusters_says_running(shared):
    [c] = [c for c in sshcluster.list_clusters() if c.name == shared]
    assert c.state == "running"
    assert c.scheduler_address.startswith("tcp://127.0.0.1:")
    assert c.dashboard_link.startswith("http://127.0.0.1:")


def test_attach_without_a_name_takes_the_only_running_one(shared):
    t = time.monotonic()
    c = sshcluster.Cluster()
    took = time.monotonic() - t
    try:
        assert c.name == shared
        assert c.status.name == "running"
        assert not c.owner
        print(f"attach took {took:.3f}s")
    finally:
        c.close()


def test_client_of_the_cluster(cluster, client):
    assert client.cluster is cluster
    assert client.submit(lambda x: x + 1, 41).result() == 42
    assert cluster.security.require_encryption is False
    assert cluster.dashboard_link == sshcluster.list_clusters()[0].dashboard_link
    assert cluster.hello == {"protocol": 1, "version": sshcluster.__version__}


def test_get_logs_has_what_tasks_print(cluster, client):
    client.submit(lambda: print("printed-by-a-task-7f3a"), pure=False).result()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:  # the controller writes the line as it arrives
        logs = cluster.get_logs()
        if any("printed-by-a-task-7f3a" in v for k, v in logs.items() if k != "scheduler"):
            break
        time.sleep(0.1)
    assert {"Cluster", "scheduler"} <= set(logs)
    assert any("printed-by-a-task-7f3a" in v for v in logs.values())
    only_scheduler = cluster.get_logs(cluster=False, workers=False)
    assert list(only_scheduler) == ["scheduler"]
    assert "Scheduler at" in only_scheduler["scheduler"]


def test_get_logs_of_workers_by_address_as_dask_takes_them(cluster, client):
    client.wait_for_workers(1)
    address, info = sorted(client.scheduler_info()["workers"].items())[0]
    # Dask's get_logs(workers=[...]) takes worker addresses: they gave no worker's log.
    logs = cluster.get_logs(cluster=False, scheduler=False, workers=[address])
    assert list(logs) == [str(info["name"])]
    assert list(cluster.get_logs(cluster=False, scheduler=False, workers=[str(info["name"])])) == [str(info["name"])]


def test_cluster_without_a_name_in_a_task_is_its_own_cluster(shared, client):
    """On a worker, SSHCLUSTER_CLUSTER names the cluster; the process's own name is
    SSHCLUSTER_PROCESS (SSHCLUSTER_NAME was the worker's name there, so Cluster()
    looked for a cluster called like the worker)."""
    from conftest import REPO

    def which(path):
        import os
        import sys
        sys.path.insert(0, path)
        from sshcluster._state import pick_running
        env = {k: os.environ.get(k) for k in ("SSHCLUSTER_CLUSTER", "SSHCLUSTER_PROCESS", "SSHCLUSTER_NAME")}
        return pick_running(None).name, env

    name, env = client.submit(which, str(REPO / "python"), pure=False).result()
    assert name == shared
    assert env["SSHCLUSTER_CLUSTER"] == shared
    assert env["SSHCLUSTER_PROCESS"].startswith("localhost-")
    assert env["SSHCLUSTER_NAME"] is None


def test_a_process_of_an_older_controller_is_told_apart():
    """SSHCLUSTER_ID without SSHCLUSTER_CLUSTER: a process an older controller started,
    where SSHCLUSTER_NAME is the process's name, not a cluster's."""
    from sshcluster._state import name_from_env

    assert name_from_env({"SSHCLUSTER_NAME": "lab"}) == "lab"
    assert name_from_env({"SSHCLUSTER_CLUSTER": "lab", "SSHCLUSTER_ID": "lab-1"}) == "lab"
    assert name_from_env({"SSHCLUSTER_NAME": "n1-0", "SSHCLUSTER_ID": "lab-1"}) is None
    assert name_from_env({}) is None


def test_wait_for_workers_fails_at_once_when_n_cannot_be_placed(cluster):
    t = time.monotonic()
    with pytest.raises(SSHClusterError, match="cannot wait for 50 worker.*only 2 can be placed"):
        cluster.wait_for_workers(50, timeout="5m")
    assert time.monotonic() - t < 10


def test_scale_then_wait(cluster, capsys):
    r = cluster.scale(1)
    assert r["desired"] == 1
    # Scaled to 1: waiting for 2 cannot end, though 2 could be placed.
    with pytest.raises(SSHClusterError, match="scaled to 1") as e:
        cluster.wait_for_workers(2)
    assert "cluster.scale(2)" in e.value.hint
    cluster.scale(2)
    cluster.wait_for_workers(2, timeout="2m")
    assert len(cluster.scheduler_info["workers"]) == 2


def test_adapt_runs_in_the_controller_and_survives_close(shared, cluster, capsys):
    ad = cluster.adapt(minimum=1, maximum=2, interval="1s")
    assert (ad.minimum, ad.maximum) == (1, 2)
    assert ad.enabled
    assert "minimum 1, maximum 2" in ad.explain()
    again = cluster.adapt(maximum=1)  # changes the bounds, no second loop
    assert (again.minimum, again.maximum) == (1, 1)
    assert cluster._adaptive is None
    other = sshcluster.Cluster(shared)
    other.close()
    [info] = [c for c in sshcluster.list_clusters() if c.name == shared]
    assert info.adaptive["maximum"] == 1  # a closed handle leaves adaptive on
    cluster.scale(2)
    assert "adaptive scaling is now off" in capsys.readouterr().err
    assert not again.enabled
    assert "adaptive is off" in again.explain()


def test_security_loader(shared, cluster):
    assert sshcluster.security_loader({"address": cluster.scheduler_address}).require_encryption is False
    assert sshcluster.security_loader({"address": "tls://10.9.9.9:8786"}) is None


def test_dask_ctl_discovery(shared):
    async def names():
        return [(n, cls) async for n, cls in discover()]
    assert (shared, sshcluster.Cluster) in asyncio.run(names())


def test_from_name_asynchronous(shared):
    async def go():
        c = await sshcluster.Cluster.from_name(shared, asynchronous=True)
        try:
            async with Client(c, asynchronous=True) as cl:
                assert await cl.submit(lambda: 7) == 7
            return c.status.name
        finally:
            await c.close()
    assert asyncio.run(go()) == "running"


def test_forward_output_prints_a_tasks_print_here(cluster, client):
    import io

    from sshcluster._forward import OutputForwarder

    out, err = io.StringIO(), io.StringIO()
    fwd = OutputForwarder(cluster._info.socket, cluster.name, out=out, err=err)
    try:
        client.submit(lambda: print("forwarded-line-91c2"), pure=False).result()
        deadline = time.monotonic() + 30
        while "forwarded-line-91c2" not in out.getvalue() and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        fwd.stop()
    assert re.search(r"^\[localhost-\d\] forwarded-line-91c2$", out.getvalue(), re.M), out.getvalue()
    assert "distributed.worker" not in out.getvalue() + err.getvalue()
    handle = cluster.forward_output()
    assert handle in cluster._forwarders
    handle.stop()


def test_repr_html_adds_hosts_adaptive_and_events(cluster):
    cluster.scale(2)  # an event, whichever tests ran before
    html = cluster._repr_html_()
    assert cluster.name in html
    assert "<strong>Hosts:</strong> localhost up" in html
    assert "<strong>Adaptive:</strong>" in html
    assert "<strong>Recent events:</strong>" in html
    assert "scale:" in html
