"""Exceptions raised by generated jobs at run time.

A :class:`TremorError` carries Tremor's exact message text and the index of the source site
(into the generated job's ``SITES`` table) whose span the rendered error underlines. The two
signal exceptions implement ``emit`` and ``drop``, which end a script early. A
:class:`RenderedError` is an error of a select or window, already rendered.
"""

from __future__ import annotations

from typing import Any

__all__ = ["DropSignal", "EmitSignal", "NO_STATE", "TremorError"]


NO_STATE: Any = object()


class TremorError(Exception):
    """A Tremor runtime error.

    Attributes:
        message: Tremor's message, exactly as printed after the carets.
        site: index into the job's ``SITES`` table, ``-1`` when unknown.
        state: the script's ``state`` when the error was raised, if the script assigns to it
            (Tremor mutates state in place, so changes made before an error persist).

    >>> e = TremorError("Bad array index", 3)
    >>> (e.message, e.site)
    ('Bad array index', 3)
    """

    def __init__(self, message: str, site: int = -1) -> None:
        super().__init__(message)
        self.message = message
        self.site = site
        self.state: Any = NO_STATE

    def at(self, site: int) -> TremorError:
        """Set the site if it is still unknown, then return ``self`` (for re-raising)."""
        if self.site < 0:
            self.site = site
        return self


class RenderedError(Exception):
    """An error of a select, already rendered as Tremor prints it (``Error: …``)."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


class EmitSignal(Exception):
    """``emit [value] [=> port]``: stop the script and output ``value`` on ``port``."""

    def __init__(self, value: Any, port: str = "out") -> None:
        super().__init__(port)
        self.value = value
        self.port = port


class DropSignal(Exception):
    """``drop``: stop the script and output nothing."""
