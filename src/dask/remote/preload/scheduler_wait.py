# A Dask preload for the process that registers a worker with its scheduler (the nanny;
# the worker itself with --no-nanny): it returns once the scheduler accepts a
# connection, polled every POLL_S seconds, so Dask's own connect then succeeds at once.
#
# Why: sshcluster starts a cluster's workers together with its scheduler, so their
# imports overlap. A nanny that is ready before its scheduler listens retries with
# Dask's random, doubling backoff (distributed/comm/core.py connect(): 10 ms x 2^n,
# full jitter), whose last sleep may end tens of milliseconds after the scheduler is
# up. Preloads run after the process listens and before it connects to the scheduler
# (Nanny.start_unsafe, Worker.start_unsafe; 2022.12 and 2024.12 alike).
#
# Each probe is a whole Dask handshake, then closed: a bare TCP connect that closes
# makes the scheduler log "closed before handshake completed". Any failure, or the
# connect timeout (distributed.comm.timeouts.connect), returns and leaves the rest to
# Dask, which then fails (or succeeds) exactly as it would have.
#
# A refused probe is made cheap (_DirectClient): a nanny that waits 0.4 s for a
# scheduler still importing probes it ~80 times, on a host whose CPU the scheduler may
# share. With distributed 2022.12, a waiting nanny spends 50 ms of CPU per second
# probing so, 74 through Dask's connector, 4 not probing (medians of 5 windows,
# bench/py/scheduler_wait_cpu.py; they vary by a third from window to window).
import asyncio
import logging
import socket
import time

logger = logging.getLogger("distributed.sshcluster.wait")

POLL_S = 0.005


class _DirectClient:
    """What Dask's TCP and TLS connectors (BaseTCPConnector.connect, the same in 2022.12
    and 2024.12) ask of tornado's TCPClient, for one numeric address: a non-blocking
    socket connected from the event loop, so that a refused connect is a syscall and not
    a getaddrinfo in the executor's thread plus tornado's connector. The stream and its
    TLS are tornado's, made as TCPClient makes them; the comm, handshake and errors stay
    Dask's."""

    def __init__(self, family, sockaddr):
        self.family = family
        self.sockaddr = sockaddr

    async def connect(self, host, port, max_buffer_size=None, ssl_options=None):
        from tornado.iostream import IOStream, StreamClosedError

        sock = socket.socket(self.family, socket.SOCK_STREAM)
        sock.setblocking(False)
        try:
            await asyncio.get_running_loop().sock_connect(sock, self.sockaddr)
        except OSError as e:
            sock.close()
            raise StreamClosedError(real_error=e)
        except BaseException:
            sock.close()
            raise
        stream = IOStream(sock, max_buffer_size=max_buffer_size)
        if ssl_options is not None:
            stream = await stream.start_tls(False, ssl_options=ssl_options, server_hostname=host)
        return stream


def _direct(connector, loc):
    """Whether `connector` (a fresh one: get_connector() makes one per call) now connects
    through _DirectClient: when it is Dask's TCP or TLS one and `loc` a numeric address.
    Otherwise (a host name, another transport) it is left as it is."""
    from distributed.comm.addressing import parse_host_port
    from distributed.comm.tcp import BaseTCPConnector

    if not isinstance(connector, BaseTCPConnector):
        return False
    host, port = parse_host_port(loc)
    for family in (socket.AF_INET, socket.AF_INET6):
        try:
            socket.inet_pton(family, host)
        except OSError:
            continue
        connector.client = _DirectClient(family, (host, port))
        return True
    return False


async def _probe(connector, loc, args, time_left):
    """True once a handshake with the scheduler completed; False: not listening yet."""
    try:
        comm = await asyncio.wait_for(connector.connect(loc, deserialize=False, **args), time_left())
    except (asyncio.TimeoutError, OSError) as e:
        from distributed.comm.core import FatalCommClosedError

        if isinstance(e, FatalCommClosedError):
            raise
        return False
    try:
        # The scheduler writes its handshake first on 2022.12, reads first on 2024.12;
        # writing first suits both (the messages are small).
        await asyncio.wait_for(comm.write(comm.handshake_info()), time_left())
        await asyncio.wait_for(comm.read(), time_left())
    finally:
        await comm.close()
    return True


async def dask_setup(server):
    try:
        import dask
        from dask.utils import parse_timedelta
        from distributed.comm import parse_address
        from distributed.comm.registry import get_backend

        addr = server.scheduler.address
        scheme, loc = parse_address(addr)
        connector = get_backend(scheme).get_connector()
        how = "direct connects" if _direct(connector, loc) else "Dask's connector"
        timeout = parse_timedelta(dask.config.get("distributed.comm.timeouts.connect"), default="seconds")
        start = time.monotonic()
        deadline = start + timeout

        def time_left():
            return max(0.0, deadline - time.monotonic())

        probes = 0
        while time_left() > 0:
            probes += 1
            if await _probe(connector, loc, server.connection_args, time_left):
                logger.debug("scheduler %s accepted after %.3f s (%d probes, %s)", addr, time.monotonic() - start, probes, how)
                return
            await asyncio.sleep(POLL_S)
    except Exception as e:  # never stops the process: Dask's own connect decides
        logger.debug("not waiting for the scheduler: %r", e)
