"""Rows the cluster's repr and widget add to distributed's: hosts (state, last error),
adaptive (target, last reason) and recent events, from the controller's status."""
from __future__ import annotations

from html import escape


def _row(label: str, value: str) -> str:
    return f'<tr><td style="text-align: left;" colspan="2"><strong>{escape(label)}:</strong> {value}</td></tr>'


def status_rows(s: dict) -> str:
    hosts = ", ".join(
        escape(f"{h['name']} {h['state']}") + (f" (<em>{escape(str(h['lastError']))}</em>)" if h.get("lastError") else "")
        for h in s.get("hosts", []))
    rows = [_row("Hosts", hosts or "none")]
    ad = s.get("adaptive")
    if ad and ad.get("enabled"):
        last = ad.get("lastDecision")
        why = f"; {escape(last['decision'])}: {escape(last['reason'])}" if last else ""
        rows.append(_row("Adaptive", f"target {ad.get('target')} of {ad.get('minimum')}–{ad.get('maximum') if ad.get('maximum') is not None else '∞'}{why}"))
    else:
        rows.append(_row("Adaptive", f"off (fixed size {s.get('desiredWorkers')})"))
    events = s.get("events") or []
    if events:
        items = "".join(f"<li>{escape(_event_text(e))}</li>" for e in events[-5:])
        rows.append(_row("Recent events", f'<ul style="margin: 0;">{items}</ul>'))
    return "\n".join(rows)


def _event_text(e) -> str:
    if isinstance(e, dict):
        return " ".join(str(e.get(k)) for k in ("time", "subject", "text") if e.get(k)) or str(e)
    return str(e)
