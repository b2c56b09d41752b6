"""Black, the formatter of every generated job: one ``black.Mode`` (100 columns, Python 3.10
and later) for every caller, so a job's bytes depend only on its text and black's version."""

from __future__ import annotations

import black

MODE = black.Mode(line_length=100, target_versions={black.TargetVersion.PY310})


def black_format(text: str) -> str:
    """``black.format_str(text)`` with :data:`MODE` (raises ``black.InvalidInput``)."""
    return black.format_str(text, mode=MODE)
