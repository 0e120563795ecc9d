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
import asyncio
import logging
import time

logger = logging.getLogger("distributed.sshcluster.wait")

POLL_S = 0.005


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
        timeout = parse_timedelta(dask.config.get("distributed.comm.timeouts.connect"), default="seconds")
        start = time.monotonic()
        deadline = start + timeout

        def time_left():
            return max(0.0, deadline - time.monotonic())

        while time_left() > 0:
            if await _probe(connector, loc, server.connection_args, time_left):
                logger.debug("scheduler %s accepted after %.3f s", addr, time.monotonic() - start)
                return
            await asyncio.sleep(POLL_S)
    except Exception as e:  # never stops the process: Dask's own connect decides
        logger.debug("not waiting for the scheduler: %r", e)
