"""Native lowering without Spark: which constructs lower, the pre-filter IR, the report."""

from __future__ import annotations

import ast

import pytest

from compiler.codegen.job import isort_key
from compiler.lowering.attach import IMPORT, attach_prefilter
from compiler.lowering.predicate import NotNative
from compiler.lowering.prefilter import native_drop_plan, script_drop_predicate
from compiler.lowering.report import NATIVE, classify, expressions, lowering_report
from compiler.pipeline import check_program, check_source, compile_source
from compiler.source import Source
from runtime_support.spark.prefilter import narrow_keys


def tree(text: str, kind: str = "script"):
    return check_source(Source(name="t.tremor", text=text), kind)


def graph(text: str, kind: str = "script"):
    return check_program(Source(name="t.tremor", text=text), kind).ir


def test_match_drop_lowers_to_first() -> None:
    ir = script_drop_predicate(tree('match event.m of case "info" => drop case _ => event end'))
    assert ir == (
        "first",
        (
            (("and", ("defined", ("m",)), ("eq", ("m",), "info")), ("const", True)),
            (("and", ("defined", ("m",)), ("const", True)), ("const", False)),
        ),
    )


def test_record_pattern_missing_key_is_no_match() -> None:
    ir = script_drop_predicate(tree("match event of case %{a == 1, present b} => drop end"))
    ((matched, decided),) = ir[1]
    assert decided == ("const", True)
    assert ("and", ("present", ("a",)), ("eq", ("a",), 1)) in _flatten(matched)


def _flatten(ir):
    yield ir
    for part in ir[1:]:
        if isinstance(part, tuple) and part and isinstance(part[0], str):
            yield from _flatten(part)


def test_bare_drop() -> None:
    assert script_drop_predicate(tree("drop")) == ("const", True)


@pytest.mark.parametrize(
    "text, reason",
    [
        ("let event.x = 1; drop", "does not start with a match"),
        ('match event.m of case "a" => event end', "no case of the first match drops"),
        ("match event.m of case 1.0 => drop end", "float literal"),
        ("match event.m of case x when x > 1 => drop end", "not a literal"),
        ('match event[event.k] of case "a" => drop end', "computed index"),
        ('match event.m of case "a" when $x == 1 => drop end', "reads `meta`"),
    ],
)
def test_not_native_reasons(text: str, reason: str) -> None:
    with pytest.raises(NotNative) as err:
        script_drop_predicate(tree(text))
    assert reason in err.value.reason


def test_classify() -> None:
    verdicts = {type(e).__name__: classify(e) for e in expressions(tree("event.a + 1"))}
    assert verdicts["Binary"].startswith("operator `+`")
    assert verdicts["Path"] == NATIVE and verdicts["Literal"] == NATIVE


def test_report_totals() -> None:
    text = lowering_report(graph('match event.m of case "x" => drop case _ => {"a": 1} end'))
    assert "native pre-filter: a drop plan, not built" in text
    assert "expressions: 7, lowerable natively: 6" in text
    assert "builds or changes a value" in text


def test_query_plan_needs_single_plain_select() -> None:
    q = (
        'define script s script match event.m of case "x" => drop case _ => event end end;\n'
        "create script s;\nselect event from in into s;\nselect event from s into out;\n"
    )
    assert native_drop_plan(graph(q, "query")) is not None
    twice = q + "select event from in into out;\n"
    assert native_drop_plan(graph(twice, "query")) is None
    where = q.replace("from in into s", "from in where true into s")
    assert native_drop_plan(graph(where, "query")) is None


def test_builds_add_no_prefilter() -> None:
    """No switch, and no lowering measured faster: a program with a drop plan (narrow or not)
    builds without a pre-filter, deterministically; attached, the job still compiles."""
    for text in ('match event.m of case "x" => drop case _ => event end', "drop"):
        assert native_drop_plan(graph(text)) is not None
        first = compile_source(Source(name="t.tremor", text=text), "script").job
        second = compile_source(Source(name="t.tremor", text=text), "script").job
        assert first == second and "with_native_prefilter" not in first
        compile(attach_prefilter(first, "in", native_drop_plan(graph(text))), "job.py", "exec")


@pytest.mark.parametrize(
    "text, keys",
    [
        ('match event.m of case "x" => drop case _ => event end', ("m",)),
        ('match event of case %{a == "x", present b} => event case _ => drop end', ("a", "b")),
        ('match event.m of case "1x" => drop case _ => event end', None),  # numbers print so
        ('match event.m of case "true" => drop case _ => event end', None),
        ('match event.m of case "[x" => drop case _ => event end', None),
        ("match event.m of case null => drop case _ => event end", None),
        ('match event.a.b of case "x" => drop case _ => event end', None),
        ("match event of case _ => drop end", None),  # reads no key: nothing shows a parse
    ],
)
def test_narrow_keys(text: str, keys: tuple | None) -> None:
    assert narrow_keys(native_drop_plan(graph(text))) == keys


def test_attach_keeps_imports_sorted() -> None:
    """The name joins the names of the one runtime_support import, in isort's order (constants,
    classes, then the rest); the other imports stay as they were."""
    job = compile_source(Source(name="t.tremor", text="drop"), "script").job
    attached = attach_prefilter(job, "in", ("const", True))
    head, new_head = job.split("\nfrom runtime_support import")[0], attached.split("\nSOURCE =")[0]
    assert attached.startswith(head)
    statement = ast.parse(new_head).body[-1]
    assert isinstance(statement, ast.ImportFrom) and statement.module == "runtime_support"
    names = [alias.name for alias in statement.names]
    assert IMPORT in names and names == sorted(names, key=isort_key)
    assert sum(line.startswith("from runtime_support") for line in attached.split("\n")) == 1


TYPED_SCHEMA = "m STRING, a BIGINT"


def typed(text: str, ports: dict | None = None) -> tuple:
    from compiler.lowering.schema import parse_schema
    from compiler.lowering.typed import typed_plan

    return typed_plan(tree(text), parse_schema(TYPED_SCHEMA), ports or {"out": "out"})


def test_cases_leading_to_one_leaf_are_that_leaf() -> None:
    """Which case matched changes nothing: the plan is one leaf, every check kept."""
    plan = typed(
        'match event of case %{m == "a"} => let x = 1 case %{m ~= glob|b*|} => let x = 2 '
        "case _ => null end;\nlet event.c = event.a + 1;\nevent"
    )
    a = ("get", ("ev",), "a")
    assert plan == (
        "leaf",
        "out",
        ("extend", (("c", ("add", a, ("lit", 1))),)),
        (("isnull", a), ("gt", a, ("lit", 2**63 - 2))),
    )


def test_known_order_and_never_taken_cases() -> None:
    """`x > x + c` is known once the addition's overflow check holds; a case that never
    matches is left out, and the cases after one that always matches too."""
    plan = typed(
        "use tremor::system;\nlet t = system::ingest_ns();\n"
        "match t >= system::ingest_ns() + 10 of case true => drop case _ => event end"
    )
    assert plan == (
        "leaf",
        "out",
        ("extend", ()),
        (("isnull", ("ingest",)), ("gt", ("ingest",), ("lit", 2**63 - 11))),
    )


@pytest.mark.parametrize(
    "rule, ir",
    [
        ("x", ("eq", "T", ("lit", "x"))),
        ("ab*", ("startswith", "T", ("lit", "ab"))),
        ("*b", ("endswith", "T", ("lit", "b"))),
        ("*mid*", ("contains", "T", ("lit", "mid"))),
        (
            "a*b",
            (
                "and",
                ("and", ("startswith", "T", ("lit", "a")), ("endswith", "T", ("lit", "b"))),
                ("ge", ("length", "T"), ("lit", 2)),
            ),
        ),
    ],
)
def test_glob_tests(rule: str, ir: tuple) -> None:
    from compiler.lowering.typed_values import glob_test

    assert glob_test("T", rule) == ir  # type: ignore[arg-type]


@pytest.mark.parametrize("rule", ["a?", "[ab]*", "a*b*c", "*a*b"])
def test_globs_without_prefix_suffix_form_stay_in_python(rule: str) -> None:
    from compiler.lowering.typed_values import glob_test

    with pytest.raises(NotNative, match="glob"):
        glob_test(("x",), rule)


def test_overflow_of_a_literal_step_is_a_range_check() -> None:
    from compiler.lowering.typed_exprs import overflow_checks

    x = ("get", ("ev",), "a")
    assert overflow_checks(("add", x, ("lit", 5))) == [("gt", x, ("lit", 2**63 - 6))]
    assert overflow_checks(("sub", x, ("lit", 5))) == [("lt", x, ("lit", -(2**63) + 5))]
    assert overflow_checks(("add", ("lit", -1), x)) == [("lt", x, ("lit", -(2**63) + 1))]
    assert overflow_checks(("sub", x, ("lit", 0))) == []
    assert overflow_checks(("mul", x, ("lit", 2))) == [("isnull", ("mul", x, ("lit", 2)))]
