"""dask-ctl discovery (entry point group `dask_cluster_discovery`): the running clusters."""
from __future__ import annotations

from ._state import list_clusters


async def discover():
    from .cluster import Cluster

    for c in list_clusters():
        if c.state == "running":
            yield c.name, Cluster
