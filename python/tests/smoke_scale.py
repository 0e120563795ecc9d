"""scale(cores=, memory=) on a cluster whose hosts' workers differ in size, without pytest
(the e2e runs it on both Dask lines). Usage: smoke_scale.py NAME, on a cluster of two
worker hosts: one of 2-thread workers with memory_limit 64 GiB (above the host's memory:
Dask caps it), one of 1-thread workers with memory_limit auto. Prints SCALE OK at the end."""
import sys
import time

import sshcluster


def limits(cluster) -> dict:
    """Each worker host's memory limit as its running workers report it."""
    deadline = time.monotonic() + 60
    while True:
        doc = cluster.status_document()
        got = {w["host"]: w["memoryLimitBytes"] for w in doc["workers"] if w.get("memoryLimitBytes")}
        if len(got) == 2:
            return got
        assert time.monotonic() < deadline, doc["workers"]
        time.sleep(0.2)


def main(name: str) -> None:
    cluster = sshcluster.Cluster(name)
    try:
        cluster.wait_for_workers(2, timeout=120)  # one per host
        lim = limits(cluster)
        small = min(lim.values())
        print("memory limits", lim)
        # 1 thread per worker on one host: 3 workers, not 2 (as 2-thread workers would give).
        assert cluster.scale(cores=3)["desired"] == 3
        # Counted with the smaller worker (the auto host's limit, as its worker reports it).
        assert cluster.scale(memory=2 * small + 1)["desired"] == 3
        assert cluster.scale(2, memory=small)["desired"] == 2
    finally:
        cluster.close()
    print("SCALE OK")


if __name__ == "__main__":
    main(sys.argv[1])
