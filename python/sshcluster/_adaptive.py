"""adapt() runs in the controller: this is a view of it, never a client-side loop.

Kept out of Cluster._adaptive on purpose: the base class's _close() stops whatever is
there, and close() must leave the cluster's adaptive settings running.
"""
from __future__ import annotations

import re

from dask.utils import parse_timedelta

from ._errors import SSHClusterError

# Dask's Adaptive keywords → the controller's adapt settings (ms for durations).
_KEYS = {
    "minimum": ("minimum", None), "maximum": ("maximum", None),
    "interval": ("intervalMs", "ms"), "wait_count": ("waitCount", None),
    "target_duration": ("targetDurationMs", "ms"),
    "minimum_cores": ("minimumCores", None), "maximum_cores": ("maximumCores", None),
    "minimum_memory": ("minimumMemory", "bytes"), "maximum_memory": ("maximumMemory", "bytes"),
}


def adapt_spec(kwargs: dict) -> dict:
    from dask.utils import parse_bytes

    spec = {}
    for k, v in kwargs.items():
        if k not in _KEYS:
            raise TypeError(f"adapt() got an unexpected keyword argument {k!r} (known: {', '.join(_KEYS)})")
        key, unit = _KEYS[k]
        if v is None or v == float("inf"):
            spec[key] = None
        elif unit == "ms":
            spec[key] = parse_timedelta(v, default="seconds") * 1000
        elif unit == "bytes":
            spec[key] = parse_bytes(v) if isinstance(v, str) else v
        else:
            spec[key] = v
    return spec


# The controller words its refusals for the CLI (`--min 5 is above --max 2`) or its socket
# (`waitCount`): said with adapt()'s keywords instead, the ones the caller wrote.
_FLAGS = {
    "min": "minimum", "max": "maximum", "interval": "interval", "wait-count": "wait_count",
    "target-duration": "target_duration", "minimum-cores": "minimum_cores", "maximum-cores": "maximum_cores",
    "minimum-memory": "minimum_memory", "maximum-memory": "maximum_memory",
}
_SETTINGS = {key: (k if unit != "ms" else f"{k} (in ms)") for k, (key, unit) in _KEYS.items()}
_FLAG = re.compile(r"--(" + "|".join(sorted(_FLAGS, key=len, reverse=True)) + r")\b(?: (?=\d)(\S+))?")
_SETTING = re.compile(r"\b(" + "|".join(_SETTINGS) + r")\b")


def keyword_text(text: str | None) -> str | None:
    """A controller's adapt message in adapt()'s keywords."""
    if text is None:
        return None
    text = _FLAG.sub(lambda m: _FLAGS[m.group(1)] + (f"={m.group(2)}" if m.group(2) else ""), text)
    text = _SETTING.sub(lambda m: _SETTINGS[m.group(1)], text)
    text = text.replace(" or null,", " or None,")
    return text.replace("sshcluster status shows it", "status_document()['adaptive'] shows it")


class ControllerAdaptive:
    """The controller's adaptive loop, read live through the control socket."""

    def __init__(self, cluster):
        self._cluster = cluster

    def _status(self) -> dict:
        return self._cluster._status().get("adaptive") or {}

    @property
    def enabled(self) -> bool:
        return bool(self._status().get("enabled"))

    @property
    def minimum(self):
        return self._status().get("minimum")

    @property
    def maximum(self):
        m = self._status()
        return m.get("maximum") if m.get("maximum") is not None else (float("inf") if m else None)

    @property
    def target(self):
        return self._status().get("target")

    def explain(self) -> str:
        """The last decision, its reason and any unmet demand."""
        s = self._status()
        if not s:
            return "adaptive scaling is off (a fixed size)"
        last = s.get("lastDecision")
        lines = [f"target {s.get('target')} (minimum {s.get('minimum')}, maximum {s.get('maximum') if s.get('maximum') is not None else 'none'})"
                 + ("" if s.get("enabled") else "; adaptive is off")]
        lines.append(f"last decision: {last['decision']}: {last['reason']}" if last else "last decision: none yet")
        lines += [f"unmet: {u}" for u in s.get("unmet", [])]
        return "\n".join(lines)

    def stop(self) -> None:
        """Adaptive off (the cluster keeps its current size), as `sshcluster adapt --off`."""
        self._cluster._call("adapt", {"off": True})

    def __repr__(self) -> str:
        try:
            s = self._status()
        except SSHClusterError:  # a repr never raises: a closed handle has no view
            return "<ControllerAdaptive: handle closed>"
        if not s:
            return "<ControllerAdaptive: off>"
        bounds = f"minimum={s.get('minimum')} maximum={s.get('maximum')}"
        if not s.get("enabled"):  # stopped: the settings kept for the next adapt()
            return f"<ControllerAdaptive: off (last {bounds})>"
        return f"<ControllerAdaptive: {bounds} target={s.get('target')}>"
