"""Every claim in docs/regex.md: Rust ``regex`` syntax run on Python's ``re``."""

from __future__ import annotations

import re

import pytest

from runtime_support.tremor.extractors import compile_extractor
from runtime_support.tremor.stdlib.rust_regex import RegexError, compile_rust, expand


def found(pattern: str, text: str) -> str | None:
    m = compile_rust(pattern).search(text)
    return None if m is None else m.group(0)


# (pattern, text, expected match or None) — translated constructs, same result as Rust.
TRANSLATED = [
    # named groups, both spellings
    ("(?P<n>a+)", "baa", "aa"),
    ("(?<n>a+)", "baa", "aa"),
    # `$` is end of text only (Rust), not "before a final newline" (Python)
    ("a$", "a\n", None),
    ("a$", "a", "a"),
    ("(?m)a$", "a\nb", "a"),
    ("(?m:a$)", "a\nb", "a"),
    (r"a\z", "a", "a"),
    (r"\Aa", "ba", None),
    # \x{…} escapes
    (r"\x{1F600}", "x😀", "😀"),
    (r"\x41", "A", "A"),
    # POSIX classes
    ("[[:digit:]]+", "ab12", "12"),
    ("[[:alpha:]_]+", "a_b1", "a_b"),
    # flags: global, mid-pattern, scoped, and negation
    ("(?i)abc", "xABC", "ABC"),
    ("a(?i)b", "aB", "aB"),
    ("(?i)a(?-i)b", "AB", None),
    ("(?i:a)b", "Ab", "Ab"),
    ("(?s).", "\n", "\n"),
    (".", "\n", None),
    ("(?x) a b # comment", "ab", "ab"),
    # Unicode is the default (`u` on) and `(?-u)` gives ASCII classes
    (r"\d+", "٣٤", "٣٤"),
    (r"(?-u)\d+", "٣٤", None),
    (r"\w+", "héé", "héé"),
    (r"(?-u:\w)+", "héé", "h"),
    (r"(?u)\w+", "é", "é"),
    # `\s` is Unicode White_Space: NBSP yes, the C0 separators U+001C..U+001F no
    (r"\s", "\xa0", "\xa0"),
    (r"\s", "\x1c", None),
    (r"[\s]", "\x1f", None),
    (r"\S+", "a\x1c", "a\x1c"),
    # repetition
    ("a{2,3}", "aaaa", "aaa"),
    ("a{2,}?", "aaaa", "aa"),
    ("a{1000}", "a" * 1000, "a" * 1000),
]


@pytest.mark.parametrize("pattern,text,expected", TRANSLATED)
def test_translated(pattern: str, text: str, expected: str | None) -> None:
    assert found(pattern, text) == expected


# (pattern, last line of the error message) — rejected at compile time.
REJECTED = [
    ("(?=a)", "error: look-around, including look-ahead and look-behind, is not supported"),
    ("(?!a)", "error: look-around, including look-ahead and look-behind, is not supported"),
    ("(?<=a)b", "error: look-around, including look-ahead and look-behind, is not supported"),
    ("(?<!a)b", "error: look-around, including look-ahead and look-behind, is not supported"),
    (r"(a)\1", "error: backreferences are not supported"),
    (
        r"\p{Greek}",
        "error: Unicode class \\p{..} is not supported by tremorc (Python's re has no equivalent)",
    ),
    (
        r"\PL",
        "error: Unicode class \\P{..} is not supported by tremorc (Python's re has no equivalent)",
    ),
    (
        "[a[bc]]",
        "error: nested classes and class set operations are not supported by tremorc "
        "(Python's re has no equivalent)",
    ),
    (
        "[a-z&&[^aeiou]]",
        "error: nested classes and class set operations are not supported by tremorc "
        "(Python's re has no equivalent)",
    ),
    (
        "[[:^alpha:]]",
        "error: negated POSIX class is not supported by tremorc (Python's re has no equivalent)",
    ),
    ("(?U)a+", "error: swap-greed flag (?U) is not supported here"),
    (r"a\Z", "error: unrecognized escape sequence"),
    (r"\Qa\E", "error: unrecognized escape sequence"),
    ("(", "error: unclosed group"),
    (")", "error: unopened group"),
    ("*", "error: repetition operator missing expression"),
    ("[a", "error: unclosed character class"),
    ("a{2,1}", "error: invalid repetition count range, the start must be <= the end"),
    ("(?P<n>a)(?P<n>b)", "error: duplicate capture group name"),
]


@pytest.mark.parametrize("pattern,message", REJECTED)
def test_rejected(pattern: str, message: str) -> None:
    with pytest.raises(RegexError) as e:
        compile_rust(pattern)
    text = str(e.value)
    assert text.startswith("regex parse error:\n") and text.splitlines()[-1] == message


def test_error_layout_has_caret_under_the_offending_position() -> None:
    with pytest.raises(RegexError) as e:
        compile_rust("ab(?=c)")
    assert str(e.value).splitlines()[1:3] == ["    ab(?=c)", "      ^"]


def test_extractor_wraps_the_regex_error() -> None:
    with pytest.raises(ValueError, match=r"^Invalid tilde predicate pattern: regex parse error:"):
        compile_extractor("re", "(?=x)")


# Replacement strings (std::re::replace / replace_all).
REPLACEMENTS = [
    ("(?P<y>\\d+)-(\\d+)", "on 2024-05", "$2/${y}", "05/2024"),
    ("(a)", "a", "$$1", "$1"),
    ("(a)", "a", "${1}x", "ax"),
    ("(a)", "a", "$1x", ""),  # Rust reads the longest name: group `1x`, unknown ⇒ ""
    ("(a)", "a", "$9", ""),
    ("(a)", "a", "\\1", "\\1"),  # no backslash references
]


@pytest.mark.parametrize("pattern,text,template,expected", REPLACEMENTS)
def test_replacement(pattern: str, text: str, template: str, expected: str) -> None:
    m = compile_rust(pattern).search(text)
    assert m is not None and expand(m, template) == expected


# Known behavioural differences: documented, pinned so a change is noticed.
def test_difference_word_class_is_pythons() -> None:
    # Rust `\w` includes combining marks (U+0301) and excludes No digits (²); Python the reverse.
    assert found(r"\w", "\u0301") is None
    assert found(r"\w", "²") == "²"


def test_difference_word_boundary_follows_word_class() -> None:
    assert found(r"\b", "\u0301") is None  # Rust: a boundary before the mark


def test_difference_negated_space_inside_class_is_pythons() -> None:
    assert found(r"[\S]", "\x1c") is None  # Rust: matches (U+001C is not White_Space)


def test_same_simple_case_folding() -> None:
    # both engines use simple case folding: KELVIN SIGN ~ k, but ß does not become SS
    assert found("(?i)k", "\u212a") == "\u212a"
    assert found("(?i)straße", "STRASSE") is None


def test_difference_ascii_mode_case_folding() -> None:
    # Rust `(?i-u)k` still matches only k/K; Python's ASCII mode agrees, so no difference here
    assert found("(?i-u)k", "\u212a") is None and found("(?i-u)k", "K") == "K"


def test_translation_output_is_plain_python_re() -> None:
    assert compile_rust("(?<n>a)$").pattern == r"(?P<n>a)\Z"
    assert isinstance(compile_rust("a"), re.Pattern)
