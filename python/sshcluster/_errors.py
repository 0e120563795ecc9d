"""Errors with a hint, as the CLI prints them."""
from __future__ import annotations


class SSHClusterError(Exception):
    """An expected failure: a message and, when there is one, what to do about it."""

    def __init__(self, message: str, hint: str | None = None):
        self.message = message
        self.hint = hint
        super().__init__(message if hint is None else f"{message}\nhint: {hint}")
