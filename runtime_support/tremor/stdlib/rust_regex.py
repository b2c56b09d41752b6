"""Rust ``regex`` syntax on top of Python's ``re``.

:func:`compile_rust` translates the differences that matter in practice (``$`` only at the very
end, ``\\z``, ``(?<name>…)``, ``\\x{…}``, POSIX classes, mid-pattern flag groups, the ``u``
flag, Unicode ``\\s``), rejects what Rust rejects (look-around, back-references) and what
Python cannot express (``\\p{…}``, nested classes and class set operations, negated POSIX
classes, ``(?U)``), and renders errors the way ``regex-syntax`` does. See docs/regex.md.
:func:`expand` implements Rust's ``$1`` / ``${name}`` replacement strings.
"""

from __future__ import annotations

import functools
import re

__all__ = ["RegexError", "compile_rust", "expand"]

_POSIX = {
    "alnum": "0-9A-Za-z",
    "alpha": "A-Za-z",
    "ascii": "\\x00-\\x7F",
    "blank": "\\t ",
    "cntrl": "\\x00-\\x1F\\x7F",
    "digit": "0-9",
    "graph": "!-~",
    "lower": "a-z",
    "print": " -~",
    "punct": "!-/:-@\\[-`{-~",
    "space": "\\t\\n\\v\\f\\r ",
    "upper": "A-Z",
    "word": "0-9A-Za-z_",
    "xdigit": "0-9A-Fa-f",
}
# Rust's `\s` is Unicode White_Space; Python's also admits U+001C..U+001F.
_SPACE = "\\t\\n\\x0b\\x0c\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000"
_UNSUPPORTED = "not supported by tremorc (Python's re has no equivalent)"
_PY_TO_RUST = (
    ("missing ), unterminated subpattern", "unclosed group"),
    ("unbalanced parenthesis", "unopened group"),
    ("nothing to repeat", "repetition operator missing expression"),
    ("multiple repeat", "repetition operator missing expression"),
    ("unterminated character set", "unclosed character class"),
    ("bad escape", "unrecognized escape sequence"),
    ("bad character range", "invalid character class range, the start must be <= the end"),
    (
        "min repeat greater than max repeat",
        "invalid repetition count range, the start must be <= the end",
    ),
    ("redefinition of group name", "duplicate capture group name"),
)


class RegexError(ValueError):
    """A pattern Rust's ``regex`` crate would reject; ``str()`` is Rust's error text."""


def _error(pattern: str, pos: int, message: str) -> RegexError:
    line_start = pattern.rfind("\n", 0, pos) + 1
    line_end = pattern.find("\n", pos)
    line = pattern[line_start : None if line_end < 0 else line_end]
    caret = " " * (pos - line_start) + "^"
    return RegexError(f"regex parse error:\n    {line}\n    {caret}\nerror: {message}")


class _Translator:
    """One left-to-right pass over a Rust pattern producing an equivalent Python pattern."""

    def __init__(self, pattern: str) -> None:
        self.p = pattern
        self.i = 0
        self.out: list[str] = []
        self.multiline = False
        # Per open group: how many extra ')' a mid-group `(?flags)` opened.
        self.extra: list[int] = [0]

    def run(self) -> str:
        while self.i < len(self.p):
            self.step()
        self.out.append(")" * self.extra[0])
        return "".join(self.out)

    def step(self) -> None:
        c = self.p[self.i]
        if c == "\\":
            self.escape(in_class=False)
        elif c == "[":
            self.char_class()
        elif c == "(":
            self.group()
        elif c == ")":
            self.out.append(")" * (self.extra.pop() if len(self.extra) > 1 else 0) + ")")
            self.i += 1
        elif c == "$":
            self.out.append("$" if self.multiline else r"\Z")
            self.i += 1
        else:
            self.out.append(c)
            self.i += 1

    def escape(self, in_class: bool) -> None:
        nxt = self.p[self.i + 1 : self.i + 2]
        if nxt == "z":
            self.out.append(r"\Z")
        elif nxt == "Z":
            raise _error(self.p, self.i, "unrecognized escape sequence")
        elif nxt in "pP" and nxt:
            raise _error(self.p, self.i, f"Unicode class \\{nxt}{{..}} is {_UNSUPPORTED}")
        elif nxt == "s":
            self.out.append(_SPACE if in_class else f"[{_SPACE}]")
        elif nxt == "S" and not in_class:
            self.out.append(f"[^{_SPACE}]")
        elif nxt.isdigit() and not in_class:
            raise _error(self.p, self.i, "backreferences are not supported")
        elif nxt == "x" and self.p[self.i + 2 : self.i + 3] == "{":
            end = self.p.index("}", self.i)
            self.out.append(f"\\U{int(self.p[self.i + 3 : end], 16):08X}")
            self.i = end + 1
            return
        else:
            self.out.append("\\" + nxt)
        self.i += 2

    def char_class(self) -> None:
        self.out.append("[")
        self.i += 1
        if self.p[self.i : self.i + 1] == "^":
            self.out.append("^")
            self.i += 1
        if self.p[self.i : self.i + 1] == "]":
            self.out.append(r"\]")
            self.i += 1
        while self.i < len(self.p) and self.p[self.i] != "]":
            m = re.match(r"\[:(\^?)([a-z]+):\]", self.p[self.i :])
            if m and m.group(1):
                raise _error(self.p, self.i, f"negated POSIX class is {_UNSUPPORTED}")
            if m and m.group(2) in _POSIX:
                self.out.append(_POSIX[m.group(2)])
                self.i += m.end()
            elif self.p[self.i] == "\\":
                self.escape(in_class=True)
            elif self.p[self.i] == "[" or self.p[self.i : self.i + 2] in ("&&", "--", "~~"):
                raise _error(
                    self.p, self.i, f"nested classes and class set operations are {_UNSUPPORTED}"
                )
            else:
                self.out.append(self.p[self.i])
                self.i += 1
        if self.i < len(self.p):
            self.out.append("]")
            self.i += 1

    def group(self) -> None:
        rest = self.p[self.i :]
        if rest.startswith(("(?=", "(?!", "(?<=", "(?<!")):
            raise _error(
                self.p,
                self.i,
                "look-around, including look-ahead and look-behind, is not supported",
            )
        flags = re.match(r"\(\?([imsxuU-]*)\)", rest)
        if flags:
            self.flag_group(_py_flags(flags.group(1)))
            self.i += flags.end()
            return
        if rest.startswith("(?<"):
            self.out.append("(?P<")
            self.i += 3
        else:
            scoped = re.match(r"\(\?([imsxu-]*):", rest)
            if scoped and "m" in scoped.group(1).split("-")[0]:
                self.multiline = True
            if scoped:
                self.out.append(f"(?{_py_flags(scoped.group(1))}:")
                self.i += scoped.end()
            else:
                self.out.append("(")
                self.i += 1
        self.extra.append(0)

    def flag_group(self, flags: str) -> None:
        if "U" in flags:
            raise _error(self.p, self.i, "swap-greed flag (?U) is not supported here")
        if "m" in flags.split("-")[0]:
            self.multiline = True
        if not flags:
            return
        if self.i == 0 and "-" not in flags:
            self.out.append(f"(?{flags})")
            return
        self.out.append(f"(?{flags}:")
        self.extra[-1] += 1


def _py_flags(flags: str) -> str:
    """Rust's ``u`` flag: on is Python's default; ``-u`` (ASCII classes) is Python's ``a``."""
    on, _, off = flags.partition("-")
    if "u" in off:
        on += "a"
    on, off = on.replace("u", ""), off.replace("u", "")
    return f"{on}-{off}" if off else on


def _python_error(pattern: str, err: re.error) -> RegexError:
    msg = err.msg
    for py, rust in _PY_TO_RUST:
        if msg.startswith(py):
            msg = rust
            break
    return _error(pattern, min(err.pos or 0, max(len(pattern) - 1, 0)), msg)


@functools.lru_cache(maxsize=1024)
def compile_rust(pattern: str) -> re.Pattern[str]:
    """Compile a Rust-syntax regex; raises :class:`RegexError` with Rust's message.

    >>> compile_rust("x$").search("x\\n") is None  # Rust `$` never matches before a newline
    True
    >>> print(compile_rust("("))
    Traceback (most recent call last):
    ...
    runtime_support.tremor.stdlib.rust_regex.RegexError: regex parse error:
        (
        ^
    error: unclosed group
    """
    try:
        translated = _Translator(pattern).run()
    except RegexError:
        raise
    except (ValueError, IndexError):
        raise _error(pattern, len(pattern) - 1, "invalid escape sequence") from None
    try:
        return re.compile(translated)
    except re.error as e:
        raise _python_error(pattern, e) from None


_REPL = re.compile(r"\$(?:\$|\{([^}]*)\}|([0-9A-Za-z_]+))")


def expand(m: re.Match[str], template: str) -> str:
    """Rust replacement expansion: ``$1``, ``$name``, ``${name}``, ``$$``; unknown groups: ``""``.

    >>> m = re.search(r"(?P<y>\\d+)-(\\d+)", "on 2024-05")
    >>> expand(m, "$2/${y} $$ $nope|")
    '05/2024 $ |'
    """

    def group(g: re.Match[str]) -> str:
        if g.group(0) == "$$":
            return "$"
        name = g.group(1) if g.group(1) is not None else g.group(2)
        try:
            key: int | str = int(name) if name.isdigit() else name
            return m.group(key) or ""
        except IndexError:
            return ""

    return _REPL.sub(group, template)
