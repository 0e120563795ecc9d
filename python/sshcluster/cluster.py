"""sshcluster.Cluster: a cluster the CLI runs, as a distributed.deploy.Cluster.

The controller (`sshcluster up`) owns the processes; this handle talks to it over the
control socket and to the scheduler as any Dask cluster manager does. close() detaches;
shutdown() is `sshcluster down`.
"""
from __future__ import annotations

import asyncio
import numbers
import sys
import time
import weakref

from dask.utils import parse_timedelta
from distributed.core import Status, rpc
from distributed.deploy.cluster import Cluster as DaskCluster

from . import _create
from ._adaptive import ControllerAdaptive, adapt_spec, keyword_text
from ._control import ConnectionClosed, ControlConnection, ControlError
from ._errors import SSHClusterError
from ._logs import read_logs
from ._scale import cores_ask, host_sizes, memory_ask, workers_for
from ._security import security_for
from ._state import ClusterInfo, cluster_info, pick_running, read_state


class Cluster(DaskCluster):
    """Attach to a cluster started by `sshcluster up --detach` (or create it with hosts=).

    name: the cluster's name; default $SSHCLUSTER_NAME, else the only running cluster.
    hosts: a host file ("local" for the local cluster): started with `up --detach` when
        no cluster of that name runs, and then this handle holds the owner lease: if its
        process dies without close(), the controller runs `down` after lease_grace.
    """

    def __init__(self, name: str | None = None, *, hosts: str | None = None, lease_grace="2m",
                 asynchronous: bool = False, loop=None, quiet: bool = False, cli: str | None = None):
        self._owner = False
        self._shut_down = False
        self._forwarders = []
        info = self._find_or_create(name, hosts, cli)
        self._info = info
        self._control = ControlConnection(info.socket, info.name)
        self.hello = self._control.hello()
        if self._owner:
            grace = parse_timedelta(lease_grace, default="seconds")
            self._control.call("lease", {"graceMs": grace * 1000})
        self._finalizer = weakref.finalize(self, ControlConnection.close, self._control)
        self.security = security_for(info.name, info.dir, info.scheduler_address)
        super().__init__(asynchronous=asynchronous, loop=loop, quiet=quiet, name=info.name)
        self.scheduler_comm = rpc(info.scheduler_address, connection_args=self.security.get_connection_args("client"))
        if not self.asynchronous:
            self._loop_runner.start()
            self.sync(self._start)

    @staticmethod
    def _find_or_create_info(name, hosts, cli) -> tuple[ClusterInfo, bool]:
        if hosts is None:
            info = pick_running(name)
        else:
            name = name or _create.host_file_name(hosts)
            info = cluster_info(name)
            if info is not None and info.state == "running":
                return info, False
            _create.up_detached(hosts, name, cli)
            info = cluster_info(name)
            created = True
            if info is None or info.state != "running":
                raise SSHClusterError(f'cluster "{name}" did not come up', hint="`sshcluster status --name` " + name)
            return info, created
        if info.state != "running":
            raise SSHClusterError(f'cluster "{info.name}" is {info.state}: its controller does not answer',
                                  hint="`sshcluster up --detach` re-adopts what is left; `sshcluster down` cleans up"
                                  if info.state == "gone" else "`sshcluster up --detach` starts it again")
        return info, False

    def _find_or_create(self, name, hosts, cli) -> ClusterInfo:
        info, self._owner = self._find_or_create_info(name, hosts, cli)
        return info

    @classmethod
    def from_name(cls, name: str, loop=None, asynchronous: bool = False) -> "Cluster":
        """Attach by name (dask-ctl's contract); never creates, never holds the lease."""
        return cls(name, loop=loop, asynchronous=asynchronous)

    async def _start(self):
        await super()._start()
        # Dask's _start takes the name from the scheduler's cluster-manager-info, which any
        # handle of that address writes: one left over from a stopped cluster, at the next
        # cluster's same address (a local cluster's 8786), names this one wrongly.
        self._cluster_info["name"] = self._info.name

    def __await__(self):
        async def _():
            if self.status == Status.created:
                await self._start()
            return self
        return _().__await__()

    # -- control calls -------------------------------------------------------------

    def _call(self, method: str, params=None, timeout: float | None = 60.0):
        if self.status == Status.closed:
            # Its control connection is closed: the socket would say only "Bad file descriptor".
            if self._shut_down:
                raise SSHClusterError(f"cluster {self.name} was shut down (shutdown())",
                                      hint=f"start it again: sshcluster.Cluster({self.name!r}, hosts=...)")
            raise SSHClusterError(f"{self.name}: this handle is closed (close() detached it; the cluster keeps running)",
                                  hint=f"attach again: sshcluster.Cluster({self.name!r})")
        try:
            return self._control.call(method, params, timeout=timeout)
        except ConnectionClosed as e:
            gone = self._controller_gone_error(e)
            if gone is e:
                raise
            raise gone from e

    def _controller_gone_error(self, e: ConnectionClosed) -> SSHClusterError:
        """What became of the cluster when its controller's connection closed under us."""
        try:
            info = cluster_info(self.name) or self._info
        except (OSError, ValueError, SSHClusterError):  # state dirs refused: say what the socket said
            return e
        if info.state == "stopped":
            return SSHClusterError(f"cluster {self.name} was stopped (sshcluster down) after this handle attached",
                                   hint=f"start it again: sshcluster.Cluster({self.name!r}, hosts=...); "
                                        "get_logs() still reads the run that stopped")
        if info.state == "gone":
            return SSHClusterError(f"the controller of cluster {self.name} is gone (the cluster may still run)",
                                   hint="`sshcluster up --detach` re-adopts what is left; `sshcluster down` cleans up")
        if info.state == "running":
            again = info.run_id is not None and info.run_id != self._info.run_id
            what = "was started again" if again else "has a new controller (it re-adopted the cluster)"
            return SSHClusterError(f"cluster {self.name} {what} since this handle attached",
                                   hint=f"attach again: sshcluster.Cluster({self.name!r})")
        return e

    def _status(self) -> dict:
        return self._call("status")

    def status_document(self) -> dict:
        """The controller's `status --json` document."""
        return self._status()

    @property
    def dashboard_link(self) -> str:
        """The dashboard as the controller forwards it to this machine."""
        return self._info.dashboard_link or ""

    @property
    def owner(self) -> bool:
        """True when this handle created the cluster and holds its owner lease."""
        return self._owner

    def scale(self, n: int = 0, memory=None, cores=None):
        """A fixed size of n workers, as Dask's SpecCluster.scale: with memory= ("16 GB") or
        cores= (threads), at least the workers that hold that much memory or run that many
        threads, and at least n. Adaptive scaling goes off (a fixed size), and this says so.

        Worker sizes are those of this cluster: threads and memory_limit from the host
        file's worker_options, a memory_limit of auto or a fraction as the host's registered
        workers report it (the smaller when both are known; hosts with no limit known yet
        are not counted, and when no worker's limit is known, memory= raises). Hosts whose workers differ in size
        are counted with the smallest, so the workers hold what was asked wherever the
        controller places them (drained hosts left out). Returns the controller's reply
        (desired: the workers it keeps); with asynchronous=True, an awaitable of it.
        """
        n = _whole(n, "scale(n): n")
        memory = None if memory is None else memory_ask(memory)
        cores = None if cores is None else cores_ask(cores)
        if memory is not None or cores is not None:
            n = workers_for(n, memory, cores, self._host_sizes(), self.name)
        r = self._call("scale", {"n": n})
        if r.get("adaptiveOff"):
            print(f"{self.name}: adaptive scaling is now off (scale sets a fixed size; adapt() turns it back on)", file=sys.stderr)
        if r.get("message"):
            print(f"{self.name}: {r['message']}", file=sys.stderr)
        return r if not self.asynchronous else _done(r)

    def _host_sizes(self) -> list:
        status = self._status()  # first: a closed handle or a stopped cluster says so
        return host_sizes(read_state(self._info.dir) or {}, status)

    def adapt(self, Adaptive=None, **kwargs) -> ControllerAdaptive:
        """Adaptive scaling in the controller, with Dask's Adaptive keywords.

        Calling it again changes the bounds (never a second loop); keywords left out keep
        the values in force (the last adapt()'s, else the host file's, else Dask's). close() leaves it running; .stop() turns it off.
        """
        try:
            reply = self._call("adapt", {"dryRun": False, "spec": adapt_spec(kwargs)})
        except ControlError as e:
            raise ControlError(keyword_text(e.message), keyword_text(e.hint), e.exit_code) from None
        for w in reply.get("warnings") or []:
            print(f"{self.name}: {keyword_text(w)}", file=sys.stderr)
        return ControllerAdaptive(self)

    def wait_for_workers(self, n_workers: int = 0, timeout=None) -> None:
        """Wait for n running workers; fails at once when the cluster cannot place n."""
        n_workers = _whole(n_workers, "wait_for_workers(n_workers): n_workers")
        p = self._call("placeable", {"n": n_workers})
        ad = (self._status().get("adaptive") or {})
        if p["desired"] < n_workers:
            raise SSHClusterError(f"{self.name}: cannot wait for {n_workers} worker(s): {p.get('message') or 'no room for more'}")
        desired = self._status()["desiredWorkers"]
        maximum = ad.get("maximum") if ad.get("enabled") else desired
        if maximum is not None and maximum < n_workers:
            why = f"adaptive maximum is {maximum}" if ad.get("enabled") else f"the cluster is scaled to {desired}"
            raise SSHClusterError(f"{self.name}: cannot wait for {n_workers} worker(s): {why}",
                                  hint=f"cluster.scale({n_workers}) or cluster.adapt(maximum={n_workers}) first")
        deadline = None if timeout is None else time.monotonic() + parse_timedelta(timeout, default="seconds")
        return self.sync(self._wait_for_workers, n_workers, deadline)

    async def _wait_for_workers(self, n: int, deadline):
        def running() -> int:
            # A worker's status here is the one it registered with ("init"); later changes
            # are not sent, but a worker on its way out is.
            return sum(1 for w in self.scheduler_info["workers"].values() if not str(w.get("status")).startswith("clos"))
        while running() < n:
            if deadline is not None and time.monotonic() > deadline:
                raise TimeoutError(f"{self.name}: {running()} of {n} worker(s) running after the timeout")
            await asyncio.sleep(0.1)

    def forward_output(self, processes=None, dask_logs: bool = False):
        """Print the workers' stdout and stderr here as they come (a task's print() in this
        cell or script), without Dask's own log lines unless dask_logs. Returns an object
        whose stop() ends it; close() ends it too."""
        from ._forward import OutputForwarder

        fwd = OutputForwarder(self._info.socket, self.name, processes, dask_logs)
        self._forwarders.append(fwd)
        return fwd

    def get_logs(self, cluster=True, scheduler=True, workers=True):
        """Each process's whole stdout and stderr from this run's log files (prints from
        tasks, tracebacks, workers that died or restarted), and the controller's log."""
        logs = read_logs(self._info.dir, self._run_id(), cluster, scheduler, self._worker_names(workers))
        return logs if not self.asynchronous else _done(logs)

    async def _get_logs(self, cluster=True, scheduler=True, workers=True):
        return read_logs(self._info.dir, self._run_id(), cluster, scheduler, self._worker_names(workers))

    def _worker_names(self, workers):
        """Worker names (the log files' names) for Dask's worker addresses; names stay."""
        if workers is True or workers is False:
            return workers
        by_address = {a: str(w.get("name")) for a, w in self.scheduler_info.get("workers", {}).items()}
        return [by_address.get(w, w) for w in workers]

    def _run_id(self) -> str | None:
        # The state file names the run while the cluster runs (a later `up` of the same
        # name is a new run); `down` removes it, and this handle's run is still on disk.
        return self._fresh_info().run_id or self._info.run_id

    def _fresh_info(self) -> ClusterInfo:
        return cluster_info(self.name, probe=False) or self._info

    def _repr_html_(self, cluster_status=None):
        from html import escape

        from ._repr import status_rows

        try:
            rows = status_rows(self._status())
        except Exception as e:  # a repr never raises: say why the rows are missing
            why = escape(e.message) if isinstance(e, SSHClusterError) else type(e).__name__
            rows = f"<tr><td colspan='2'>controller status unavailable: {why}</td></tr>"
        return super()._repr_html_(cluster_status=(cluster_status or "") + rows)

    # -- ending ----------------------------------------------------------------------

    async def _close(self):
        """Detach: the cluster and its adaptive settings keep running; a lease is released."""
        if self.status == Status.closed:
            return
        self._adaptive = None  # never the controller's: the base class would stop it
        for fwd in self._forwarders:
            fwd.stop()
        try:
            if self._owner:
                self._control.call("release", timeout=5.0)
        except (OSError, SSHClusterError):
            pass
        self._finalizer()
        await super()._close()

    def shutdown(self, timeout=None) -> dict:
        """`sshcluster down`: retire, stop, verify. Returns what was forced or left."""
        prior = self.status
        if prior == Status.running:
            # As LocalCluster.close(): closing before the scheduler goes, so that a
            # Client(cluster) closes then (Dask 2023.x and later) instead of reconnecting.
            self.status = Status.closing
        try:
            result = self._call("down", timeout=None if timeout is None else parse_timedelta(timeout))
        except BaseException:
            if self.status == Status.closing:
                self.status = prior
            raise
        self._owner = False
        self._shut_down = True
        self.close()
        _controller_gone(self._info, 10.0)
        return result


def _whole(n, what: str) -> int:
    """A count of workers as Dask's own scale() takes it: an int, or a float with no fraction."""
    if isinstance(n, numbers.Integral) and not isinstance(n, bool):
        v = int(n)
    elif isinstance(n, float) and n.is_integer():
        v = int(n)
    else:
        v = -1
    if v < 0:
        raise ValueError(f"{what} is a whole number of workers >= 0, got {n!r}")
    return v


def _controller_gone(info: ClusterInfo, seconds: float) -> None:
    """As `sshcluster down`: the reply comes before the controller removes its state file."""
    state = info.dir / "state.json"
    pid = _controller_pid(state)
    end = time.monotonic() + seconds
    while state.exists() and pid is not None and _is_sshcluster(pid) and time.monotonic() < end:
        time.sleep(0.02)


def _controller_pid(state) -> int | None:
    import json

    try:
        return (json.loads(state.read_text()).get("controller") or {}).get("pid")
    except (OSError, ValueError):
        return None


def _is_sshcluster(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return b"sshcluster" in f.read()
    except OSError:
        return False


def _done(value):
    f = asyncio.get_event_loop().create_future()
    f.set_result(value)
    return f
