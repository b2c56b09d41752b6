"""Hand-written native arrangements measured before choosing the lowering design.

Each takes ``(spark, F, input_path, output_folder)``. The ones marked INEXACT change meaning on
some inputs (they are here only to show what a shortcut would buy).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

STRUCT = (
    "about string, guid string, abool boolean, aint bigint, short_message string, "
    "tags array<string>, array array<bigint>, index_type string, logger_name string, "
    "syslog_hostname string, application string, type string, `doc-type` string"
)


def _job(workload: str):
    from workload_jobs import job_module

    return job_module(workload, "py")


def _through_job(spark, df, workload, out):
    from workload_jobs import write_all

    write_all(_job(workload).run_pipeline(spark, {"in": df}), out)


def parse_only(spark, F, path, out):
    """try_parse_json over every line; count the non-null ones (nothing written)."""
    spark.read.text(path).select(F.expr("try_parse_json(value) is not null").alias("ok")).filter(
        "ok"
    ).write.format("noop").mode("overwrite").save()


def gjo_only(spark, F, path, out):
    """get_json_object of one field over every line (nothing written)."""
    spark.read.text(path).select(F.get_json_object("value", "$.short_message").alias("m")).filter(
        "m is not null"
    ).write.format("noop").mode("overwrite").save()


def _variant_drop(value):
    """Exact-typed guard: a JSON object whose short_message is the string info/INFO."""
    return (
        "schema_of_variant(variant_get(v, '$.short_message')) = 'STRING' and "
        "variant_get(v, '$.short_message', 'string') in ('info', 'INFO')"
    )


def filter_prefilter_variant(spark, F, path, out):
    """filter.trickle with a native pre-filter on try_parse_json + schema_of_variant guards."""
    df = spark.read.text(path).withColumn("v", F.expr("try_parse_json(value)"))
    drop = F.expr(_variant_drop("v"))
    _through_job(spark, df.filter(~F.coalesce(drop, F.lit(False))).select("value"), "filter", out)


def filter_prefilter_gjo(spark, F, path, out):
    """INEXACT (lenient parser: trailing garbage, single quotes, duplicate keys pass) —
    filter.trickle with a get_json_object pre-filter."""
    m = F.get_json_object("value", "$.short_message")
    drop = m.isin("info", "INFO") & F.col("value").contains('"short_message"')
    _through_job(
        spark, spark.read.text(path).filter(~F.coalesce(drop, F.lit(False))), "filter", out
    )


def keep_app1_prefilter_variant(spark, F, path, out):
    """keep_app1.trickle with a native pre-filter: application a string other than app1."""
    df = spark.read.text(path).withColumn("v", F.expr("try_parse_json(value)"))
    drop = F.expr(
        "schema_of_variant(variant_get(v, '$.application')) = 'STRING' and "
        "variant_get(v, '$.application', 'string') != 'app1'"
    )
    _through_job(
        spark, df.filter(~F.coalesce(drop, F.lit(False))).select("value"), "keep_app1", out
    )


def let_variant(spark, F, path, out):
    """INEXACT (to_json sorts keys) — let.trickle fully native on VARIANT."""
    spark.read.text(path).select(
        F.expr(
            "to_json(variant_set(try_parse_json(value), '$.merged', parse_json('\"true\"')))"
        ).alias("value")
    ).write.mode("overwrite").text(out)


def let_struct(spark, F, path, out):
    """INEXACT (needs the schema up front; drops unknown keys) — let.trickle on a typed struct."""
    df = spark.read.schema(STRUCT).json(path)
    cols = [F.col(f"`{c}`") for c in df.columns]
    spark.read.schema(STRUCT).json(path).select(
        F.to_json(F.struct(*cols, F.lit("true").alias("merged"))).alias("value")
    ).write.mode("overwrite").text(out)


def filter_struct(spark, F, path, out):
    """INEXACT (needs the schema up front) — filter.trickle fully native on a typed struct."""
    df = spark.read.schema(STRUCT).json(path)
    cols = [F.col(f"`{c}`") for c in df.columns]
    df.filter(~F.col("short_message").isin("info", "INFO")).select(
        F.to_json(F.struct(*cols)).alias("value")
    ).write.mode("overwrite").text(out)


NARROW = {"allowSingleQuotes": "false", "allowNonNumericNumbers": "false"}
ELIGIBLE = (
    r"^[ \t\n\r]*\{[^}]*\}[ \t\n\r]*$",
    r"[0-9.][eE][+-]?[0-9]{3}|[0-9]{19}|\\u[dD][89a-fA-F]",
)


def _narrow_prefilter(spark, F, path, ddl, drop, workload, out):
    """A pre-filter over ``from_json`` with only the fields the predicate reads (``ddl``)."""
    df = spark.read.text(path)
    value = F.col("value")
    eligible = value.rlike(ELIGIBLE[0]) & ~value.rlike(ELIGIBLE[1])
    df = df.withColumn("n", F.from_json("value", ddl, NARROW))
    gone = F.coalesce(eligible & drop(F.col("n")), F.lit(False))
    _through_job(spark, df.filter(~gone).select("value"), workload, out)


def filter_prefilter_narrow(spark, F, path, out):
    """filter.trickle with a pre-filter on from_json of `short_message` alone (a string field
    equals a literal that no other JSON kind prints as)."""
    _narrow_prefilter(
        spark,
        F,
        path,
        "short_message string",
        lambda n: n.short_message.isin("info", "INFO"),
        "filter",
        out,
    )


def keep_app1_prefilter_narrow(spark, F, path, out):
    """keep_app1.trickle with a pre-filter on from_json of `application` alone."""
    _narrow_prefilter(
        spark, F, path, "application string", lambda n: n.application != "app1", "keep_app1", out
    )


def filter_prefilter_narrow_noregex(spark, F, path, out):
    """INEXACT (no eligibility guard) — to show what the regexes cost."""
    df = spark.read.text(path).withColumn("n", F.from_json("value", "short_message string", NARROW))
    gone = F.coalesce(F.col("n.short_message").isin("info", "INFO"), F.lit(False))
    _through_job(spark, df.filter(~gone).select("value"), "filter", out)


CANDIDATES = {
    name: fn
    for name, fn in globals().items()
    if callable(fn) and not name.startswith("_") and fn.__module__ == __name__
}
