"""scale(memory=, cores=) sizing, without a cluster: the controller's state file spec and
status documents as they are written, for hosts whose workers differ in size."""
import pytest

from sshcluster import SSHClusterError
from sshcluster._scale import cores_ask, host_sizes, memory_ask, workers_for


def host(name, nthreads, memory_limit):
    return {"name": name, "workerOptions": {"nthreads": nthreads, "nworkers": 1, "memoryLimit": memory_limit}}


def state(*hosts, drained=()):
    return {"spec": {"workerHosts": list(hosts)}, "drained": list(drained)}


def status(workers=(), hosts=()):
    return {"hosts": list(hosts), "workers": list(workers)}


def test_hosts_of_different_sizes_are_counted_with_the_smallest_worker():
    sizes = host_sizes(state(host("small", 2, "4GB"), host("big", 8, "32GB")), status())
    assert [(s.host, s.nthreads, s.memory) for s in sizes] == [("small", 2, 4_000_000_000), ("big", 8, 32_000_000_000)]
    # 8 threads: 4 workers of the small host's 2 (they may all land there), not 1 of 8.
    assert workers_for(0, None, 8, sizes, "c") == 4
    assert workers_for(0, memory_ask("16 GB"), None, sizes, "c") == 4
    assert workers_for(0, memory_ask("16 GB"), 2, sizes, "c") == 4  # the larger of the two
    assert workers_for(6, memory_ask("16 GB"), 2, sizes, "c") == 6  # and at least n
    assert workers_for(0, memory_ask("4.1 GB"), None, sizes, "c") == 2  # rounded up
    assert workers_for(0, 0, 0, sizes, "c") == 0


def test_drained_hosts_are_left_out():
    st = state(host("small", 2, "4GB"), host("big", 8, "32GB"), host("gone", 1, "1GB"), drained=["small"])
    sizes = host_sizes(st, status(hosts=[{"name": "gone", "state": "draining"}]))
    assert [s.host for s in sizes] == ["big"]
    assert workers_for(0, None, 16, sizes, "c") == 2
    with pytest.raises(SSHClusterError, match="no worker host can take workers"):
        workers_for(0, None, 16, [], "c")


def test_memory_limit_auto_is_what_the_hosts_registered_workers_report():
    st = state(host("a", 1, "auto"), host("b", 1, "0.5"), host("c", 1, "auto"))
    workers = [{"host": "a", "memoryLimitBytes": 3_000_000_000}, {"host": "a", "memoryLimitBytes": 2_000_000_000},
               {"host": "b", "memoryLimitBytes": 5_000_000_000}, {"host": "c"}]
    sizes = host_sizes(st, status(workers))
    # c's limit is not known yet (its worker has not registered): counted with a's and b's.
    assert [s.memory for s in sizes] == [2_000_000_000, 5_000_000_000, None]
    assert workers_for(0, memory_ask("5 GB"), None, sizes, "c") == 3


def test_a_limit_its_workers_report_lower_counts():
    # Dask caps a memory_limit above the host's memory: the workers report what they have.
    st = state(host("a", 1, "64 GiB"), host("b", 1, "8GB"))
    sizes = host_sizes(st, status([{"host": "a", "memoryLimitBytes": 4_000_000_000}, {"host": "b"}]))
    assert [s.memory for s in sizes] == [4_000_000_000, 8_000_000_000]
    assert workers_for(0, memory_ask("12 GB"), None, sizes, "c") == 3


def test_memory_with_no_known_limit_says_so():
    sizes = host_sizes(state(host("a", 1, "auto"), host("b", 1, "0")), status([{"host": "b"}]))
    with pytest.raises(SSHClusterError, match="no worker's memory limit is known") as e:
        workers_for(0, memory_ask("1 GB"), None, sizes, "c")
    assert "memory_limit" in e.value.hint
    assert workers_for(0, None, 3, sizes, "c") == 3  # cores need no memory limit


@pytest.mark.parametrize("memory", ["lots", "-1 GB", -5, True, [1], "nan GB"])
def test_memory_dask_would_not_read_is_refused(memory):
    with pytest.raises(ValueError, match=r"scale\(memory=\): "):
        memory_ask(memory)


@pytest.mark.parametrize("cores", [-1, "8", float("nan"), float("inf"), True, None])
def test_cores_that_are_no_count_of_threads_are_refused(cores):
    with pytest.raises(ValueError, match=r"scale\(cores=\): cores is a number of threads >= 0"):
        cores_ask(cores)


def test_asks_as_dask_reads_them():
    assert memory_ask("16 GB") == 16_000_000_000
    assert memory_ask("1 GiB") == 2**30
    assert memory_ask(1234) == 1234
    assert cores_ask(8) == 8 and cores_ask(2.5) == 2.5
