"""Registry API and Tremor's error texts (messages copied from conformance error.txt files)."""

from __future__ import annotations

import pytest

from runtime_support.tremor.errors import TremorError
from runtime_support.tremor.stdlib import registry


def _call(path: str, *args: object) -> object:
    fn = registry.lookup(path)
    assert fn is not None
    return registry.call(fn, args)


def test_bad_type_message() -> None:  # script_runtime_errors/function_error_2
    with pytest.raises(TremorError, match=r"^Bad type passed to function math::max/2$"):
        _call("std::math::max", "snot", 7)


def test_from_array_bad_type() -> None:  # script_errors/function_error_1
    with pytest.raises(TremorError, match=r"^Bad type passed to function record::from_array/1$"):
        _call("std::record::from_array", 7)


def test_format_runtime_error() -> None:  # script_errors/function_error_n
    with pytest.raises(TremorError) as e:
        _call("std::string::format", 7, "snot", "badger", "cake")
    assert e.value.message == (
        "Runtime error in function string::format/4: expected 1st parameter to format to be a "
        'format specifier e.g. to print a number use `string::format("{}", 1)`'
    )


def test_aggregate_arity_message() -> None:  # query_errors/aggr_arity
    fn = registry.lookup("aggr::stats::sum")
    assert fn is not None and fn.aggregate
    with pytest.raises(TremorError) as e:
        registry.check_arity(fn, 4)
    assert e.value.message == (
        "Bad arity for function stats::sum/1..=1 but was called with 4 arguments"
    )


def test_const_flags_follow_tremor() -> None:
    non_const = [
        "std::random::bool",
        "tremor::origin::host",
        "tremor::system::ingest_ns",
        "std::url::encode",
        "std::test::assert",
        "std::win::cardinality",
    ]
    assert not any(registry.lookup(p).const for p in non_const)
    assert registry.lookup("std::string::format").const
    assert registry.lookup("std::string::format").max_arity is None


def test_modules_and_constants() -> None:
    assert registry.module_exists(("std", "datetime", "timezones"))
    assert registry.module_exists(("tremor", "chash"))
    assert not registry.module_exists(("std", "snot"))
    tz = registry.constants("std::datetime::timezones")
    assert (tz["AFRICA_ABIDJAN"], tz["EUROPE_BERLIN"], tz["ZULU"]) == (0, 433, 596)
    assert registry.constant("std::time::nanos::NANOS_PER_WEEK") == 604_800_000_000_000


@pytest.mark.parametrize(
    "path,args,expected",
    [
        ("std::string::substr", ("abc", 2, 1), "abc"),
        ("std::string::split", ("ab", ""), ["", "a", "b", ""]),
        ("std::re::replace_all", ("(?P<d>\\d)", "a1b2", "<${d}>"), "a<1>b<2>"),
        ("std::math::round", (-2.5,), -3),
        ("std::array::join", ([1, 1.0, "x"], "-"), "1-1-x"),
        ("std::time::nanos::truncate_hours", (-1,), -3_600_000_000_000),
        (
            "std::datetime::format",
            ({"timestamp": 0, "tz": "Europe/Berlin"}, "%Z %:z"),
            "CET +01:00",
        ),
        ("std::url::encode", ("a-b c",), "a%2Db%20c"),
        ("std::size::kiB", (2.0,), 2048.0),
    ],
)
def test_quirks(path: str, args: tuple, expected: object) -> None:
    assert _call(path, *args) == expected


def test_every_function_is_marked_pure_or_impure() -> None:
    from runtime_support.tremor.stdlib._table import IMPURE, IMPURE_MODULES

    fns = {fn.name: fn for fn in registry.functions()}
    assert all(type(fn.pure) is bool for fn in fns.values())
    assert IMPURE <= set(fns), "every impure name is a registered function"
    assert all(any(name.startswith(m + "::") for name in fns) for m in IMPURE_MODULES)
    for name in ("tremor::system::hostname", "tremor::system::nanotime", "std::random::integer"):
        assert not fns[name].pure, name
    for fn in fns.values():
        assert not (fn.const and not fn.pure), f"{fn.name} is const, so it must be pure"
        assert not (fn.needs_ctx and fn.pure), f"{fn.name} reads the event, so it is impure"
    assert fns["std::math::max"].pure and fns["std::time::nanos::from_millis"].pure


def test_an_unknown_aggregate_is_a_compile_error_naming_the_aggregates() -> None:
    from compiler.diagnostics import CompileError
    from compiler.pipeline import compile_source
    from compiler.source import Source

    text = (
        "define window w from tumbling with size = 2 end;\n"
        "select aggr::win::collect(event) from in[w] into out;\n"
    )
    with pytest.raises(CompileError) as e:
        compile_source(Source("q.trickle", text), "query")
    assert "Unknown aggregate function `aggr::win::collect`" in str(e.value)
    assert "aggr::win::collect_flattened" in str(e.value)
