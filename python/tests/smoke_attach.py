"""The handle on one running cluster, without pytest: for interpreters that have Dask but
no pytest (the Dask 2024.12 root the e2e uses). Usage: smoke_attach.py NAME; prints
SMOKE OK at the end, an assertion's traceback otherwise."""
import asyncio
import sys
import time

from distributed import Client

import sshcluster
from sshcluster import SSHClusterError


def main(name: str) -> None:
    import distributed
    print("distributed", distributed.__version__)
    [info] = [c for c in sshcluster.list_clusters() if c.name == name]
    assert info.state == "running", info
    t = time.monotonic()
    cluster = sshcluster.Cluster(name)
    print(f"attach {time.monotonic() - t:.3f}s")
    with Client(cluster) as client:
        assert client.cluster is cluster
        assert client.submit(lambda x: x + 1, 1).result() == 2
        client.submit(lambda: print("smoke-print-5d1e"), pure=False).result()
        try:
            cluster.wait_for_workers(500)
            raise AssertionError("wait_for_workers(500) returned")
        except SSHClusterError as e:
            assert "can be placed" in str(e), e
        assert cluster.scale(1)["desired"] == 1
        ad = cluster.adapt(minimum=1, maximum=2)
        assert (ad.minimum, ad.maximum) == (1, 2), ad
        cluster.scale(2)
        client.wait_for_workers(2, timeout=120)  # Client delegates to the cluster's on 2024.12
        deadline = time.monotonic() + 30
        while not any("smoke-print-5d1e" in v for v in cluster.get_logs().values()):
            assert time.monotonic() < deadline, "the task's print is not in get_logs()"
            time.sleep(0.1)
        assert "<strong>Hosts:</strong>" in cluster._repr_html_()
    tls = cluster.scheduler_address.startswith("tls://")
    assert cluster.security.require_encryption is tls
    if tls:
        import dask
        # A plain Client of an address: the loader finds this cluster's certificates.
        with dask.config.set({"distributed.client.security-loader": "sshcluster.security_loader"}):
            with Client(cluster.scheduler_address) as plain:
                assert plain.submit(lambda: 5).result() == 5
        print("tls: plain Client(address) through sshcluster.security_loader ok")
        # A fresh process that only imported the package: no setting, no environment.
        import os
        import subprocess
        code = ("import sshcluster\nfrom distributed import Client\n"
                f"with Client({cluster.scheduler_address!r}, timeout=60) as c:\n"
                "    print(c.submit(lambda: 6).result())\n")
        env = {k: v for k, v in os.environ.items() if not k.startswith("DASK_")}
        env["PYTHONPATH"] = os.pathsep.join(sys.path)
        r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
        assert (r.returncode, r.stdout) == (0, "6\n"), r.stderr[-2000:]
        print("tls: plain Client(address) after import sshcluster ok")
    cluster.close()
    assert cluster.status.name == "closed"
    assert [c.state for c in sshcluster.list_clusters() if c.name == name] == ["running"]

    async def attach_async():
        c = await sshcluster.Cluster.from_name(name, asynchronous=True)
        async with Client(c, asynchronous=True) as cl:
            assert await cl.submit(lambda: 3) == 3
        await c.close()
    asyncio.run(attach_async())
    print("SMOKE OK")


if __name__ == "__main__":
    main(sys.argv[1])
