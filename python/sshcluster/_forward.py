"""forward_output(): workers' output printed live here, from the controller's event
stream (`subscribe`), as a task's print() would be on a local machine."""
from __future__ import annotations

import re
import sys
import threading

from ._control import ControlConnection

# Dask's own log lines ("2026-01-01 12:00:00,123 - distributed.worker - INFO - ...").
_DASK_LOG = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+ - distributed\.")


class OutputForwarder:
    """A running forward; stop() ends it (so does the cluster going down)."""

    def __init__(self, socket_path: str, cluster: str, processes=None, dask_logs: bool = False, out=None, err=None):
        self._conn = ControlConnection(socket_path, cluster)
        self._processes = None if processes is None else set(processes)
        self._dask_logs = dask_logs
        self._out = out
        self._err = err
        self._conn.call("subscribe")
        self._conn.settimeout(None)
        self._thread = threading.Thread(target=self._run, name=f"sshcluster-forward-{cluster}", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while True:
            try:
                msg = self._conn.read_message()
            except (OSError, ValueError):
                return
            if msg is None:
                return
            e = msg.get("event") or {}
            if e.get("kind") == "process-line":
                self._line(e)

    def _line(self, e: dict) -> None:
        if e.get("name") == "scheduler" and self._processes is None:
            return
        if self._processes is not None and e.get("name") not in self._processes:
            return
        if not self._dask_logs and _DASK_LOG.match(e.get("line", "")):
            return
        stream = (self._err or sys.stderr) if e.get("stream") == "stderr" else (self._out or sys.stdout)
        print(f"[{e.get('name')}] {e.get('line')}", file=stream, flush=True)

    def stop(self) -> None:
        self._conn.close()
        self._thread.join(timeout=5)
