"""The error every processor raises: its message is the reason an ``err`` record carries."""

from __future__ import annotations

__all__ = ["ProcessorError"]


class ProcessorError(ValueError):
    """A processor could not process its input (or its config is invalid); the message is
    Tremor's where Tremor has one."""
