"""``std::re``: Rust-syntax regular expressions (compiled per pattern, cached)."""

from __future__ import annotations

from typing import Any

from runtime_support.tremor.stdlib._table import FnError, native, want_str
from runtime_support.tremor.stdlib.rust_regex import RegexError, compile_rust, expand

M = "std::re"


def _compile(pattern: Any) -> Any:
    try:
        return compile_rust(want_str(pattern))
    except RegexError as e:
        raise FnError(str(e)) from None


@native(f"{M}::replace", 3)
def replace(pattern: Any, s: Any, to: Any) -> str:
    """Replace the first match; ``to`` may use ``$1`` / ``${name}``.

    >>> replace("c", "abacacaca", "b"), replace("(?P<x>a)(b)", "abab", "$2$x")
    ('ababacaca', 'baab')
    """
    rx, s, to = _compile(pattern), want_str(s), want_str(to)
    return rx.sub(lambda m: expand(m, to), s, count=1)


@native(f"{M}::replace_all", 3)
def replace_all(pattern: Any, s: Any, to: Any) -> str:
    """Replace every match; ``to`` may use ``$1`` / ``${name}``."""
    rx, s, to = _compile(pattern), want_str(s), want_str(to)
    return rx.sub(lambda m: expand(m, to), s)


@native(f"{M}::is_match", 2)
def is_match(pattern: Any, s: Any) -> bool:
    """True if the pattern matches anywhere in ``s``."""
    return _compile(pattern).search(want_str(s)) is not None


@native(f"{M}::split", 2)
def split(pattern: Any, s: Any) -> list:
    """Pieces between matches (capture groups are not included).

    >>> split("a[abc]", "snotabsnotacsnotaabadger")
    ['snot', 'snot', 'snot', 'badger']
    """
    rx, s = _compile(pattern), want_str(s)
    pieces, last = [], 0
    for m in rx.finditer(s):
        if m.end() == m.start() == 0 and not s:
            break
        pieces.append(s[last : m.start()])
        last = m.end()
    pieces.append(s[last:])
    return pieces
