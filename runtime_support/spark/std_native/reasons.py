"""Why the remaining std functions have no native lowering (one reason per module).

The package calls :func:`explain_fallbacks` once every lowering module has registered its
lowerings (and their specific reasons), so only functions without a lowering or a reason get
one here. Invariant afterwards: every function has either
``lowering`` or a non-empty ``fallback``.
"""

from __future__ import annotations

from runtime_support.spark.std_native.base import fallback


def explain_fallbacks() -> None:
    """Give every function that has neither a lowering nor a reason its module's reason."""
    fallback(
        "JSON text: `parse_json` accepts trailing content and turns 1e400 into a string; "
        "`to_json` sorts keys and prints 1.0 as 1",
        "std::json::",
    )
    fallback("aggregate: state lives in the trickle window runtime", "aggr::")
    fallback(
        "not const: reads the event's metadata or the host", "tremor::origin::", "tremor::system::"
    )
    fallback("jump-consistent hash / sorted serialisation: no Spark form", "tremor::chash::")
    fallback("chrono formats and time zones differ from Spark's", "std::datetime::")
    fallback(
        "nanosecond arithmetic: checked i64 overflow is an error, to_* always returns a float",
        "std::time::nanos::",
    )
    fallback("Rust regex syntax and replacement rules differ from Java's", "std::re::")
    fallback(
        "binary values never occur in a VARIANT read from JSON", "std::binary::", "std::base64::"
    )
    fallback("random: seeded from ingest_ns with Rust's SmallRng", "std::random::")
    fallback("checked overflow is a Tremor error (Spark raises or wraps)", "std::size::")
    fallback("Rust float/integer parsing and formatting rules", "std::float::", "std::integer::")
    fallback("builds a range/array value no predicate consumes", "std::range::")
    fallback("path lookup with defaults over arbitrary values", "std::path::")
    fallback("URL parsing (Rust url crate) has no exact Spark equivalent", "std::url::")
    fallback("test helpers: assertions report through the Python runtime", "std::test::")
    fallback("window state lives in the trickle runtime", "std::win::")
    fallback("no exact native equivalent", "std::", "tremor::", "aggr::")
