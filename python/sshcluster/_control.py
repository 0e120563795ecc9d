"""The controller's control socket: JSON lines, requests by id (src/control/protocol.ts).

One blocking connection per use; calls are short, except `down`, which waits for the
teardown. Events from a subscription are skipped by call() (a handle's connections do not
subscribe, except forward_output's).
"""
from __future__ import annotations

import json
import socket
import threading

from ._errors import SSHClusterError
from ._version import CONTROL_PROTOCOL, __version__

MAX_LINE_BYTES = 1024 * 1024


class ControlError(SSHClusterError):
    """The controller refused a call (its message, hint and exit code)."""

    def __init__(self, message: str, hint: str | None = None, exit_code: int = 1):
        super().__init__(message, hint)
        self.exit_code = exit_code


class NoController(SSHClusterError):
    pass


class ControlConnection:
    def __init__(self, path: str, cluster: str, timeout: float = 5.0):
        self.cluster = cluster
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._sock.settimeout(timeout)
        try:
            self._sock.connect(path)
        except (FileNotFoundError, ConnectionRefusedError) as e:
            self._sock.close()
            raise NoController(f"no controller is running for cluster {cluster}",
                               hint="`sshcluster up --detach` starts it again (it re-adopts what is left); "
                                    "`sshcluster down` cleans up") from e
        self._file = self._sock.makefile("rb")
        self._next = 1
        self._lock = threading.Lock()

    def call(self, method: str, params=None, timeout: float | None = 30.0):
        with self._lock:
            rid = self._next
            self._next += 1
            msg = {"id": rid, "method": method}
            if params is not None:
                msg["params"] = params
            self._sock.settimeout(timeout)
            try:
                self._sock.sendall((json.dumps(msg) + "\n").encode())
            except (BrokenPipeError, ConnectionResetError) as e:
                raise ConnectionClosed(f"the controller of cluster {self.cluster} closed the connection",
                                       hint="it may have stopped; `sshcluster status` shows whether it is still running") from e
            while True:
                reply = self._read()
                if "event" in reply:
                    continue
                if reply.get("id") == 0 and not reply.get("ok"):
                    raise _error(reply["error"])
                if reply.get("id") != rid:
                    continue
                if reply.get("ok"):
                    return reply.get("result")
                raise _error(reply.get("error") or {"message": "malformed response"})

    def read_message(self):
        """The next message (for a subscribed connection); None when the controller closed it."""
        try:
            return self._read()
        except ConnectionClosed:
            return None

    def _read(self):
        try:
            line = self._file.readline(MAX_LINE_BYTES + 1)
        except ConnectionResetError:  # a controller that died with our request unread
            line = b""
        if not line:
            raise ConnectionClosed(f"the controller of cluster {self.cluster} closed the connection before answering",
                                   hint="it may have stopped; `sshcluster status` shows whether it is still running")
        return json.loads(line)

    def settimeout(self, timeout: float | None) -> None:
        self._sock.settimeout(timeout)

    def close(self) -> None:
        # shutdown first: it wakes a thread blocked reading (forward_output's); close alone may not.
        try:
            self._sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        try:
            self._file.close()
        finally:
            self._sock.close()

    def hello(self) -> dict:
        """The controller's protocol and version; refuses a major this package does not speak."""
        try:
            h = self.call("hello", timeout=5.0)
        except ControlError as e:
            if "does not know the method" in e.message:
                raise SSHClusterError(
                    f"the controller of cluster {self.cluster} is older than this package ({__version__}) and has no hello",
                    hint="restart it with this sshcluster: `sshcluster down` then `up`, or install the package from the CLI's own version") from e
            raise
        if h.get("protocol") != CONTROL_PROTOCOL:
            raise SSHClusterError(
                f"the controller of cluster {self.cluster} speaks control protocol {h.get('protocol')} "
                f"(sshcluster {h.get('version')}); this package ({__version__}) speaks {CONTROL_PROTOCOL}",
                hint=f"install the Python package that comes with sshcluster {h.get('version')}: "
                     "pip install --no-build-isolation ./python from that version's checkout")
        return h


class ConnectionClosed(SSHClusterError):
    pass


def _error(body: dict) -> ControlError:
    return ControlError(body.get("message", "error"), body.get("hint"), body.get("exitCode", 1))
