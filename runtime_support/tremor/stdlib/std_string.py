"""``std::string``: string functions (lengths and indexes count Unicode code points)."""

from __future__ import annotations

from typing import Any

from runtime_support.tremor.jsonio import encode_json
from runtime_support.tremor.stdlib._table import FnError, native, want_bytes, want_str, want_uint

M = "std::string"
# Unicode White_Space (what Rust's `str::trim` strips); Python's str.strip() also strips
# U+001C..U+001F, which are not White_Space.
_WS = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
_NOT_FMT = (
    "expected 1st parameter to format to be a format specifier e.g. to print a number use "
    '`string::format("{}", 1)`'
)


def _format_piece(arg: Any) -> str:
    return arg if type(arg) is str else encode_json(arg)


@native(f"{M}::format", (1, None))
def format_(fmt: Any, *args: Any) -> str:
    """Fill ``{}`` placeholders in order; ``{{``/``}}`` are literal braces.

    >>> format_("the {} is {}", "meaning of life", 42)
    'the meaning of life is 42'
    >>> format_("{{}} {}", [1, "a"])
    '{} [1,"a"]'
    """
    if type(fmt) is not str:
        raise FnError(_NOT_FMT)
    stack = list(reversed(args))
    out: list[str] = []
    it = iter(enumerate(fmt))
    for pos, ch in it:
        if ch == "{":
            nxt = next(it, (None, None))[1]
            if nxt == "}":
                if not stack:
                    raise FnError(
                        "the arguments passed to the format function are less than the `{}` "
                        f"specifiers in the format string. The placeholder at {pos} can not "
                        "be filled"
                    )
                out.append(_format_piece(stack.pop()))
            elif nxt == "{":
                out.append("{")
            else:
                raise FnError(
                    f"the format specifier at {pos} is invalid. If you want to use `{{` as a "
                    "literal in the string, you need to escape it with `{{`"
                )
        elif ch == "}":
            if next(it, (None, None))[1] != "}":
                raise FnError(
                    f"the format specifier at {pos} is invalid. You have to terminate `}}` "
                    "with another `}` to escape it"
                )
            out.append("}")
        else:
            out.append(ch)
    if stack:
        raise FnError(
            "too many parameters passed. Ensure that you have the same number of {} in your "
            "format string"
        )
    return "".join(out)


@native(f"{M}::is_empty", 1)
def is_empty(s: Any) -> bool:
    """True for ``""``."""
    return not want_str(s)


@native(f"{M}::len", 1)
def len_(s: Any) -> int:
    """Number of Unicode code points."""
    return len(want_str(s))


@native(f"{M}::bytes", 1)
def bytes_(s: Any) -> int:
    """UTF-8 length in bytes."""
    return len(want_str(s).encode())


@native(f"{M}::replace", 3)
def replace(s: Any, old: Any, new: Any) -> str:
    """Replace every literal occurrence of ``old``."""
    return want_str(s).replace(want_str(old), want_str(new))


@native(f"{M}::trim", 1)
def trim(s: Any) -> str:
    """Strip Unicode white space at both ends."""
    return want_str(s).strip(_WS)


@native(f"{M}::trim_start", 1)
def trim_start(s: Any) -> str:
    """Strip leading Unicode white space."""
    return want_str(s).lstrip(_WS)


@native(f"{M}::trim_end", 1)
def trim_end(s: Any) -> str:
    """Strip trailing Unicode white space."""
    return want_str(s).rstrip(_WS)


@native(f"{M}::lowercase", 1)
def lowercase(s: Any) -> str:
    """Unicode lower case."""
    return want_str(s).lower()


@native(f"{M}::uppercase", 1)
def uppercase(s: Any) -> str:
    """Unicode upper case."""
    return want_str(s).upper()


@native(f"{M}::capitalize", 1)
def capitalize(s: Any) -> str:
    """Upper-case the first code point only.

    >>> capitalize("snot bAdger"), capitalize("")
    ('Snot bAdger', '')
    """
    s = want_str(s)
    return s[:1].upper() + s[1:]


@native(f"{M}::substr", 3)
def substr(s: Any, start: Any, end: Any) -> str:
    """Code points ``[start, end)``; out-of-range start is 0 and end is the length.

    (quirk) ``start > end`` gives the whole string, like the upstream byte slicing fallback.

    >>> substr("snot badger", 5, 10), substr("abc", 7, 9), substr("abc", 2, 1)
    ('badge', 'abc', 'abc')
    """
    s, lo, hi = want_str(s), want_uint(start), want_uint(end)
    lo = lo if lo < len(s) else 0
    hi = hi if hi < len(s) else len(s)
    return s[lo:hi] if lo <= hi else s


@native(f"{M}::split", 2)
def split(s: Any, sep: Any) -> list:
    """Rust ``str::split``: empty pieces kept; an empty separator splits around every char.

    >>> split("a,,b", ","), split("ab", "")
    (['a', '', 'b'], ['', 'a', 'b', ''])
    """
    s, sep = want_str(s), want_str(sep)
    if sep == "":
        return ["", *s, ""]
    return s.split(sep)


@native(f"{M}::contains", 2)
def contains(s: Any, sub: Any) -> bool:
    """Substring test."""
    return want_str(sub) in want_str(s)


@native(f"{M}::from_utf8_lossy", 1)
def from_utf8_lossy(data: Any) -> str:
    """Decode UTF-8, replacing invalid sequences with U+FFFD."""
    return want_bytes(data).decode("utf-8", errors="replace")


@native(f"{M}::into_binary", 1)
def into_binary(s: Any) -> bytes:
    """UTF-8 bytes."""
    return want_str(s).encode()


@native(f"{M}::reverse", 1)
def reverse(s: Any) -> str:
    """Reverse by code point."""
    return want_str(s)[::-1]
