"""Syntax errors are read off the grammar: the tokens it expected where the lexer's token starts."""

from __future__ import annotations

import pytest
from parsimonious.exceptions import ParseError

from compiler.diagnostics import CompileError
from compiler.grammar import load_grammar
from compiler.lex import KEYWORDS
from compiler.parse.deploy import parse_deploy
from compiler.parse.query import parse_query
from compiler.parse.script import parse_script
from compiler.source import Source


def error_of(parse, text: str) -> CompileError:  # type: ignore[no-untyped-def]
    with pytest.raises(CompileError) as info:
        parse(Source(name="x", text=text))
    return info.value


def expected_of(message: str) -> list[str]:
    return message.split(" but expected ", 1)[1].removeprefix("one of ").split(", ")


def test_the_grammar_is_built_once_per_process() -> None:
    assert load_grammar("query", "script") is load_grammar("query", "script")


@pytest.mark.parametrize("word", sorted(KEYWORDS))
def test_every_keyword_of_the_lexer_is_no_identifier(word: str) -> None:
    grammar = load_grammar("script")
    assert grammar["keyword"].match(word).end == len(word)
    with pytest.raises(ParseError):
        grammar["plain_ident"].match(word)
    assert grammar["plain_ident"].match(word + "x").end == len(word) + 1


def test_expected_tokens_are_the_terminals_that_failed_there() -> None:
    err = error_of(parse_script, "let = 1")
    assert err.message.startswith("Found the token `=` but expected one of ")
    assert expected_of(err.message) == [
        "`$`",
        "`(`",
        "`<ident>`",
        "`[`",
        "`args`",
        "`event`",
        "`group`",
        "`state`",
        "`window`",
        "`{`",
    ]


def test_a_literal_that_is_only_part_of_a_token_is_not_matched() -> None:
    """``::`` is a prefix of the token ``:::``: Tremor's parser sees ``:::`` where the path
    could go on, and so does the error."""
    err = error_of(parse_script, "a:::b()")
    assert err.message.startswith("Found the token `:::` but expected one of ")
    expected = expected_of(err.message)
    assert "`::`" in expected and "`(`" in expected and "`;`" in expected


def test_an_unexpected_end_is_reported_at_the_last_token() -> None:
    err = error_of(parse_script, "event.a >\n")
    assert err.message.startswith("Found the token `>` but expected one of ")
    assert err.span is not None and err.span.as_tuple() == (8, 9)
    assert "`>`" in expected_of(err.message) and "`.`, `.`" in err.message


def test_a_module_comment_is_expected_only_where_tremor_takes_one() -> None:
    assert "`<mod-comment>`" in expected_of(error_of(parse_script, "<>").message)
    assert "`<mod-comment>`" not in expected_of(error_of(parse_script, "1; <>").message)
    assert "`<mod-comment>`" not in expected_of(error_of(parse_query, "<>").message)


def test_doc_comments_are_expected_before_definitions() -> None:
    expected = expected_of(error_of(parse_deploy, "define flow x flow ; end; <").message)
    assert "`<doc-comment>`" in expected and "`define`" in expected


def test_lexical_errors_win_over_syntax_errors() -> None:
    err = error_of(parse_script, 'let = 1; "abc')
    assert "string" in err.message


def test_what_may_follow_the_last_token_is_expected_without_space_before_the_end() -> None:
    spaced = expected_of(error_of(parse_script, "event >").message)
    assert expected_of(error_of(parse_script, "event>").message) == spaced
    assert "`[`" in spaced and "`and`" in spaced


def test_an_empty_file_names_what_may_start_one() -> None:
    err = error_of(parse_deploy, "# nothing\n")
    assert err.message.startswith("Found the end of the file but expected one of ")
    assert {"`#!config`", "`<mod-comment>`", "`define`", "`deploy`", "`use`"} <= set(
        expected_of(err.message)
    )
    assert "`<mod-comment>`" not in expected_of(error_of(parse_query, "").message)


def test_every_keyword_rule_spells_a_keyword_of_the_lexer() -> None:
    """The grammar's ``kw_*`` rules and the lexer agree on what a keyword is (``session``, a
    tremorc window kind, is the one word the grammar reads that Tremor does not reserve)."""
    grammar = load_grammar("deploy", "query", "script")
    words = {name.removeprefix("kw_") for name in grammar if name.startswith("kw_")}
    assert words - KEYWORDS == {"session"}
    for word in words:
        assert grammar["kw_" + word].match(word).end == len(word)
        with pytest.raises(ParseError):
            grammar["kw_" + word].match(word + "x")
