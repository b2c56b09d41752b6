"""Lexer: tokens, lexical errors with Tremor's messages and spans, extractor escapes."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.diagnostics import CompileError
from compiler.lex import extractor_rule, tokenize


def kinds(text: str) -> list[tuple[str, str]]:
    return [(t.kind, t.text) for t in tokenize(text)]


def test_keywords_idents_and_dont_care() -> None:
    assert kinds("let _foo = `end`") == [
        ("kw", "let"),
        ("punct", "_"),
        ("ident", "foo"),
        ("punct", "="),
        ("ident", "end"),
    ]


def test_triple_colon_is_one_token() -> None:
    assert [t.text for t in tokenize("a:::b")] == ["a", ":::", "b"]


def test_numbers() -> None:
    assert kinds("1_000 0xFF_FF 1.5e3") == [
        ("int", "1_000"),
        ("int", "0xFF_FF"),
        ("float", "1.5e3"),
    ]


@pytest.mark.parametrize(
    ("text", "message", "span"),
    [
        ('"abc', "It looks like you forgot to terminate a string with a closing '\"'", (0, 4)),
        ('"\\z"', "An unexpected escape code 'z' was found", (1, 3)),
        ("12345j", "An unexpected character 'j' was found", (5, 6)),
        ("0x;", "An invalid hexadecimal", (0, 3)),
        ("12.0e", "An invalid float literal", (0, 4)),
        ('"#{}"', "You have an interpolation without content.", (1, 4)),
        ('"\\uD800"', "An invalid UTF8 escape sequence was found", (1, 7)),
        ("`abc", "It looks like you forgot to terminate an ident with a closing '`'", (0, 4)),
        ("re|abc", "It looks like you forgot to terminate an extractor with a closing '|'", (2, 6)),
        (
            '"""x\n"""',
            "It looks like you have characters tailing the here doc opening, it needs "
            "to be followed by a newline",
            (0, 3),
        ),
    ],
)
def test_lexical_errors(text: str, message: str, span: tuple[int, int]) -> None:
    with pytest.raises(CompileError) as info:
        tokenize(text)
    assert info.value.message == message
    assert info.value.span is not None and info.value.span.as_tuple() == span


def test_unterminated_string_inside_interpolation_reports_interpolation() -> None:
    with pytest.raises(CompileError) as info:
        tokenize('"a #{ "b }"')
    assert "string interpolation" in info.value.message


def test_int_overflow_is_lexical() -> None:
    with pytest.raises(CompileError, match="invalid integer"):
        tokenize(str(2**64))
    assert tokenize(str(2**64 - 1))[0].kind == "int"


def test_extractor_rule_escapes_and_continuation() -> None:
    assert extractor_rule("\\\\d+\\|x") == "\\d+|x"
    assert extractor_rule("\\\n   a b \\\n   c") == "a b c"


# Pieces near every edge of the lexer: numbers and what follows them, escapes, interpolation,
# extractors, comments, heredoc quotes, non-ASCII.
PIECES = st.sampled_from(
    [
        " ",
        "\n",
        "\t",
        "\x0b",
        "\x00",
        "a",
        "Z",
        "_",
        "x1",
        "e",
        "é",
        "0",
        "9",
        "19",
        "0x",
        "1.5",
        "1.",
        ".5",
        "e+",
        "e-3",
        "18446744073709551615",
        "18446744073709551616",
        "1844674407370955161",
        '"',
        '""',
        '"""',
        "\\",
        "\\n",
        "\\u",
        "#",
        "#{",
        "#{ a }",
        '#{a}"',
        "#!",
        "##",
        "#!config ",
        "|",
        "re|",
        "glob|a*|",
        "`a b`",
        "\\|",
        "`",
        "'",
        "{",
        "}",
        "(",
        ")",
        "[",
        "]",
        ",",
        ";",
        ":",
        ".",
        "$",
        "=",
        "<",
        ">",
        "+",
        "-",
        "*",
        "/",
        "%",
        "&",
        "^",
        "!",
        "~",
        "@",
        "?",
    ]
)


@settings(max_examples=3000, deadline=None)
@given(st.lists(PIECES, max_size=12).map("".join))
def test_any_text_lexes_or_is_a_lexical_error(text: str) -> None:
    """Tokens in source order, never overlapping, inside the text; or a CompileError with a span
    inside the text, or just past its end (an unexpected end of the text), and no other
    exception."""
    try:
        tokens = tokenize(text)
    except CompileError as err:
        assert err.span is not None and 0 <= err.span.start <= err.span.end <= len(text) + 1
        return
    ends = [0, *(t.end for t in tokens)]
    assert all(e <= t.start <= t.end <= len(text) for e, t in zip(ends[:-1], tokens, strict=True))
