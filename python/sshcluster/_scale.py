"""scale(n, memory=, cores=) as Dask's SpecCluster.scale takes them: the number of workers
that gives that much memory or that many threads, from the sizes of this cluster's workers.

The controller places new workers on the hosts it chooses, so a cluster whose hosts
differ in worker size is counted with its smallest workers: the workers started hold at
least what was asked, whichever hosts they land on (as SpecCluster, which has one size).
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

from dask.utils import parse_bytes

from ._errors import SSHClusterError


@dataclass(frozen=True)
class HostSize:
    host: str
    nthreads: int
    #: A worker's memory limit in bytes; None when not known (no limit, or auto / a
    #: fraction of the host's memory with none of the host's workers registered yet).
    memory: int | None


def memory_ask(memory) -> int:
    """memory= as Dask reads it (parse_bytes: "16 GB", "512 MiB", a number of bytes), >= 0."""
    try:
        if isinstance(memory, bool):
            raise ValueError("a bool is no amount of memory")
        v = parse_bytes(memory)
    except (ValueError, TypeError, AttributeError, OverflowError) as e:
        raise ValueError(f"scale(memory=): {memory!r} is no amount of memory Dask reads "
                         f"('16 GB', '512 MiB' or a number of bytes): {e}") from None
    if v < 0:
        raise ValueError(f"scale(memory=): {memory!r} is negative; an amount of memory is >= 0")
    return v


def cores_ask(cores) -> float:
    """cores= as a number of threads >= 0 (a float as Dask's takes it)."""
    if isinstance(cores, numbers.Real) and not isinstance(cores, bool) and math.isfinite(cores) and cores >= 0:
        return cores
    raise ValueError(f"scale(cores=): cores is a number of threads >= 0, got {cores!r}")


def _limit_bytes(limit) -> int | None:
    """A worker_options memory_limit in bytes, when it is a size (as `dask worker` reads it:
    a number up to 1 is a fraction of the host's memory, 0 no limit)."""
    if limit is None or limit == "auto":
        return None
    try:
        number = float(limit)
    except (TypeError, ValueError):
        number = None
    if number is not None:
        return int(number) if number > 1 else None
    try:
        v = parse_bytes(limit)
    except (ValueError, TypeError, AttributeError, OverflowError):
        return None
    return v if v > 0 else None


def host_sizes(state: dict, status: dict) -> list[HostSize]:
    """The worker size of each host new workers may go to (drained hosts are left out).

    Threads and a memory_limit that is a size come from the spec the controller recorded
    in its state file; a memory_limit of auto or a fraction, from what the host's
    registered workers report in the controller's status. Both known, the smaller: Dask
    caps a limit above the host's memory, and a worker started before an `apply` that
    changed the limit still has its old one.
    """
    out = set(state.get("drained") or [])
    out |= {h.get("name") for h in status.get("hosts") or [] if h.get("state") in ("drained", "draining")}
    registered: dict[str, list[int]] = {}
    for w in status.get("workers") or []:
        if w.get("memoryLimitBytes"):
            registered.setdefault(w.get("host"), []).append(int(w["memoryLimitBytes"]))
    sizes = []
    for h in (state.get("spec") or {}).get("workerHosts") or []:
        if h.get("name") in out:
            continue
        opts = h.get("workerOptions") or {}
        known = [m for m in [_limit_bytes(opts.get("memoryLimit")), *registered.get(h.get("name"), [])] if m]
        sizes.append(HostSize(h.get("name"), int(opts.get("nthreads") or 1), min(known) if known else None))
    return sizes


def workers_for(n: int, memory: int | None, cores: float | None, sizes: list[HostSize], name: str) -> int:
    """max(n, the workers that hold memory bytes, those that run cores threads), counted
    with the smallest worker of the hosts in sizes."""
    if not sizes:
        raise SSHClusterError(f"{name}: scale(memory=, cores=): no worker host can take workers (all are drained)",
                              hint="`sshcluster undrain HOST`, or scale(n)")
    if cores is not None:
        n = max(n, math.ceil(cores / min(s.nthreads for s in sizes)))
    if memory is not None:
        known = [s.memory for s in sizes if s.memory]
        if not known:
            raise SSHClusterError(
                f"{name}: scale(memory=): no worker's memory limit is known (memory_limit auto or a fraction "
                "of the host's memory, and none of its workers has registered; or no memory limit)",
                hint="set memory_limit to a size in the host file's worker_options, or scale(n) and ask again "
                     "once workers have registered")
        n = max(n, math.ceil(memory / min(known)))
    return n
