"""The ``grok`` extractor (runtime_support/tremor/extractors/grok.py) in generated jobs: Tremor's
own ``tests/scripts/grok`` case and the forms with space or a comment before the rule."""

from __future__ import annotations

from typing import Any

import pytest

from compiler.pipeline import compile_source
from compiler.source import Source
from compiler.testing.runner import run_job_on_lines


def _run(text: str, lines: list[str], name: str) -> list[tuple[str, Any]]:
    job = compile_source(Source("t.tremor", text), "script").job
    return run_job_on_lines(job, name, lines)


GROK = """match event of
  case rp = %{ meta ~= grok |%{IP:client} %{WORD:method} %{URIPATHPARAM:request} %{NUMBER:bytes} %{NUMBER:duration}| } => rp
  case _ => "no match"
end
"""  # noqa: E501 - Tremor's tests/scripts/grok/script.tremor


@pytest.mark.spark
def test_tremors_own_grok_case(spark: Any) -> None:
    got = _run(GROK, ['{ "meta": "55.3.244.1 GET /index.html 15824 0.043" }'], "front_grok")
    assert got == [
        (
            "out",
            {
                "meta": {
                    "duration": "0.043",
                    "bytes": "15824",
                    "client": "55.3.244.1",
                    "request": "/index.html",
                    "method": "GET",
                }
            },
        )
    ]


@pytest.mark.spark
def test_grok_forms_with_space_or_comment_before_the_rule(spark: Any) -> None:
    text = (
        "let first = match event.m of\n"
        "  case r = ~ grok # the rule follows\n    |%{IP:ip}| => r\n"
        "  case _ => null\nend;\n"
        "let second = match event.m of\n"
        "  case ~ grok\t|%{WORD:w} %{IP:ip}| => true\n"
        "  case _ => false\nend;\n"
        "[first, second]\n"
    )
    got = _run(text, ['{"m": "GET 10.0.0.1"}', '{"m": "-"}'], "front_grok_forms")
    assert got == [("out", [{"ip": "10.0.0.1"}, True]), ("out", [None, False])]
