"""Black, imported only where a build needs it: most of a job is laid out without black
(``codegen/*fmt.py``), and importing black costs about 0.1 s of a build that takes 0.3-0.5 s.

Every caller formats with the same settings: 100 columns, Python 3.10 and later.
"""

from __future__ import annotations

from functools import cache
from typing import Any

LINE_LENGTH = 100


@cache
def black_mode() -> Any:
    """The ``black.Mode`` of every generated job."""
    import black

    return black.Mode(line_length=LINE_LENGTH, target_versions={black.TargetVersion.PY310})


def black_format(text: str) -> str:
    """``black.format_str(text)`` with :func:`black_mode` (raises ``black.InvalidInput``)."""
    import black

    return black.format_str(text, mode=black_mode())


def invalid_input() -> type[Exception]:
    """Black's exception for text it cannot parse."""
    import black

    return black.InvalidInput
