# A Dask preload (scheduler, worker and nanny of a TLS cluster): clears OpenSSL's error
# queue before each TLS read, write, handshake and shutdown of this process.
#
# Why: OpenSSL keeps its error queue per thread, and SSL_get_error() reports whatever is
# queued there. CPython's ssl module does not clear it before SSL_read/SSL_write
# (python/cpython#148594), so an error left by one connection (a write to a peer that
# went away) is reported by the next read of another, healthy connection on the same
# thread: Dask's event loop. With OpenSSL 3.5 (Debian trixie) a scheduler read failed
# this way with "BrokenPipeError" on a worker's or client's brand-new connection in
# about one start in six under load; the worker left and the client lost its futures.
#
# Clearing the queue before each call is what OpenSSL's SSL_get_error() documentation
# asks of the caller. Importing this module twice patches once; without a libcrypto
# that ctypes can reach it changes nothing and says so.
import ctypes
import logging
import ssl

logger = logging.getLogger("distributed.sshcluster.ssl")

_MARK = "_sshcluster_clears_error_queue"
_METHODS = {
    ssl.SSLSocket: ("read", "write", "send", "do_handshake", "unwrap"),
    ssl.SSLObject: ("read", "write", "do_handshake", "unwrap"),
}


def _err_clear_error():
    """ERR_clear_error from the libcrypto that the ssl module itself is linked with."""
    import _ssl

    # dlsym on _ssl's handle searches the libraries it was linked with, so this is the
    # same libcrypto (and the same per-thread queue) the ssl module uses.
    fn = ctypes.CDLL(_ssl.__file__).ERR_clear_error
    fn.argtypes = []
    fn.restype = None
    return fn


def _wrap(method, clear):
    def wrapped(*args, **kwargs):
        clear()
        return method(*args, **kwargs)

    wrapped.__name__ = method.__name__
    wrapped.__doc__ = method.__doc__
    setattr(wrapped, _MARK, True)
    return wrapped


def install():
    """Patches the ssl classes once; True when the queue is now cleared before each call."""
    try:
        clear = _err_clear_error()
    except (OSError, AttributeError) as e:
        logger.warning("cannot reach OpenSSL's ERR_clear_error (%s); TLS reads are left as they are", e)
        return False
    for cls, names in _METHODS.items():
        for name in names:
            method = getattr(cls, name, None)
            if method is None or getattr(method, _MARK, False):
                continue
            setattr(cls, name, _wrap(method, clear))
    return True


install()
