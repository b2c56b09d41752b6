"""``tremor_json`` (``runtime_support/jvm/tremorc``): a struct's JSON text as Tremor writes it.

Expected texts come from orjson (whose escapes are Tremor's, ``runtime_support/tremor/jsonio``) over
the same values given to Spark, or are written out by hand; Spark's own ``to_json`` is the
reference where Java decides (a string that is not valid UTF-8)."""

from __future__ import annotations

import zipfile

import orjson
import pytest

from runtime_support.spark.jvm_json import (
    EXTENSION,
    FUNCTION,
    build_jar,
    has_tremor_json,
    jar_path,
    jdk_tool,
    session_conf,
    spark_jars_dir,
)

#: The tests that compile the jar or load it need a JDK (`.ci/install.d/jvm_json.sh` installs one).
needs_jdk = pytest.mark.skipif(
    jdk_tool("javac") is None or jdk_tool("jar") is None,
    reason="no JDK (javac and jar): run .ci/install.d/jvm_json.sh",
)
TEXTS = [chr(i) for i in range(0x80)] + ["", "\u00e9\u2603", "\U0001f600", "\u2028", "\x7f"]
TEXTS += ['a "quoted" \\ path\\u001F', "\\\x1f", "tab\there\nline\r\x08\x0c", "x" * 3000]
# Each character at each place of a word of a 16-byte string (the writer reads 8 bytes at once)
TEXTS += [("x" * at) + chr(c) + ("y" * (15 - at)) for c in range(0x80) for at in (0, 3, 7, 8, 15)]
TEXTS += ["\u00e9" * 9 + '"', "\U0001f600abcd\u2603" * 3 + "\x1f", "z" * 17 + "\\"]
SCHEMA = (
    "s STRING, n BIGINT, b BOOLEAN, t ARRAY<STRING>, o STRUCT<x: BIGINT, y: ARRAY<BIGINT>>, "
    "r ARRAY<STRUCT<k: STRING>>"
)
ROWS = [
    ("a", 1, True, ["p", None, "q"], (3, [1, None]), [("v",), None, (None,)]),
    (None, None, None, None, None, None),
    ("", -9223372036854775808, False, [], (None, []), []),
    ("\x00\x1f", 9223372036854775807, None, [""], (None, None), None),
]


def _event(row: tuple) -> dict:
    """The row as Tremor's record: NULL fields left out (an array keeps NULL elements)."""
    names = ("s", "n", "b", "t", "o", "r")
    event = {k: v for k, v in zip(names, row, strict=True) if v is not None}
    if "o" in event:
        event["o"] = {k: v for k, v in zip(("x", "y"), event["o"], strict=True) if v is not None}
    if "r" in event:
        event["r"] = [None if item is None else _record(item) for item in event["r"]]
    return event


def _record(item: tuple) -> dict:
    return {"k": item[0]} if item[0] is not None else {}


def _texts(frame, column) -> list[str]:
    return [row.j for row in frame.select(column.alias("j")).collect()]


@needs_jdk
def test_the_jar_is_built_once_per_source_and_spark(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    jar = build_jar(spark_jars_dir())
    assert jar.is_relative_to(tmp_path)
    names = zipfile.ZipFile(jar).namelist()
    assert {"tremorc/TremorJson.class", "tremorc/TremorExtensions.class"} <= set(names)
    built = jar.stat().st_mtime_ns
    assert build_jar(spark_jars_dir()) == jar and jar.stat().st_mtime_ns == built


@needs_jdk
def test_session_conf_appends_to_what_is_given() -> None:
    conf = session_conf({"spark.jars": "/x.jar", "spark.sql.extensions": "a.B", "k": "v"})
    assert conf["spark.jars"] == f"/x.jar,{jar_path()}"
    assert conf["spark.sql.extensions"] == f"a.B,{EXTENSION}"
    assert conf["k"] == "v"


def test_turned_off_by_the_environment(monkeypatch) -> None:
    monkeypatch.setenv("TREMORC_JVM_JSON", "off")
    assert session_conf({"k": "v"}) == {"k": "v"}


@needs_jdk
@pytest.mark.spark
def test_every_ascii_character_and_others_as_tremor_writes_them(spark) -> None:
    from pyspark.sql import functions as F

    assert has_tremor_json(spark), "the test session loads the jar (a JDK is installed)"
    frame = spark.createDataFrame([(t,) for t in TEXTS], "s string")
    got = _texts(frame, F.call_function(FUNCTION, F.struct("s")))
    assert got == [orjson.dumps({"s": t}).decode() for t in TEXTS]
    assert got[0x1F] == '{"s":"\\u001f"}' and got[0x0A] == '{"s":"\\n"}'


@needs_jdk
@pytest.mark.spark
def test_nulls_nesting_and_integers(spark) -> None:
    from pyspark.sql import functions as F

    frame = spark.createDataFrame(ROWS, SCHEMA)
    got = _texts(frame, F.call_function(FUNCTION, F.struct(*frame.columns)))
    assert got == [orjson.dumps(_event(row)).decode() for row in ROWS]
    assert got[1] == "{}"
    assert got[0] == (
        '{"s":"a","n":1,"b":true,"t":["p",null,"q"],"o":{"x":3,"y":[1,null]},'
        '"r":[{"k":"v"},null,{}]}'
    )
    sized = F.struct(F.length("s").alias("i"), F.lit(2).cast("short").alias("h"))
    assert _texts(frame.limit(1), F.call_function(FUNCTION, sized)) == ['{"i":1,"h":2}']


@needs_jdk
@pytest.mark.spark
def test_a_null_struct_is_null_and_code_generation_agrees(spark) -> None:
    """Whole-stage code generation and the interpreted path write the same text."""
    from pyspark.sql import functions as F

    frame = spark.createDataFrame(ROWS, SCHEMA)
    column = F.call_function(FUNCTION, F.when(F.col("n").isNotNull(), F.struct(*frame.columns)))
    generated = _texts(frame, column)
    spark.conf.set("spark.sql.codegen.wholeStage", "false")
    spark.conf.set("spark.sql.codegen.factoryMode", "NO_CODEGEN")
    try:
        interpreted = _texts(frame, column)
    finally:
        spark.conf.unset("spark.sql.codegen.wholeStage")
        spark.conf.unset("spark.sql.codegen.factoryMode")
    assert generated == interpreted and generated[1] is None


@needs_jdk
@pytest.mark.spark
def test_invalid_utf8_is_written_as_java_decodes_it(spark) -> None:
    """A string Spark holds as bytes that are not UTF-8 (cast from binary): ``to_json``'s text,
    which decodes it through Java (each bad byte a U+FFFD)."""
    from pyspark.sql import functions as F

    bad = [b"a\xff\xc3(\x1f", b"abcdefgh\xe9ijklmnop", b"\xf0\x9f\x98" + b"q" * 12]
    frame = spark.createDataFrame([(bytearray(b),) for b in bad], "b binary")
    struct = F.struct(F.col("b").cast("string").alias("s"))
    got = _texts(frame, F.call_function(FUNCTION, struct))
    assert got == _texts(frame, F.lower(F.to_json(struct)))
    assert got[0] == '{"s":"a\ufffd\ufffd(\\u001f"}'


@needs_jdk
@pytest.mark.spark
def test_other_types_are_refused_with_what_it_writes(spark) -> None:
    from pyspark.errors import AnalysisException
    from pyspark.sql import functions as F

    frame = spark.createDataFrame([(1.5,)], "d double")
    with pytest.raises(AnalysisException, match="strings, integers and booleans, not double"):
        frame.select(F.call_function(FUNCTION, F.struct("d"))).collect()


@needs_jdk
def test_tremorc_jar_prints_the_options_that_load_it() -> None:
    from click.testing import CliRunner

    from compiler.cli import cli

    result = CliRunner().invoke(cli, ["jar"])
    assert result.exit_code == 0, result.output
    assert result.output == f"--jars {jar_path()} --conf spark.sql.extensions={EXTENSION}\n"


def test_without_a_jdk_no_jar_and_the_reason(monkeypatch, tmp_path) -> None:
    from runtime_support.spark import jvm_json

    monkeypatch.setattr(jvm_json, "_BUILT", {})
    monkeypatch.setattr(jvm_json, "_WHY_NOT", {})
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))  # no jar built there yet
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("JAVA_HOME", raising=False)
    assert jvm_json.why_not_built() is None  # not asked yet
    assert jvm_json.jar_path() is None
    assert jvm_json.session_conf({"k": "v"}) == {"k": "v"}
    assert jvm_json.why_not_built() == "no JDK here (javac and jar): tremor_json is not built"


def test_tremorc_jar_without_a_jdk_says_so(monkeypatch, tmp_path) -> None:
    from click.testing import CliRunner

    from compiler.cli import cli

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))  # no jar built there yet
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("JAVA_HOME", raising=False)
    result = CliRunner().invoke(cli, ["jar"])
    assert result.exit_code == 1
    assert "no JDK here (javac and jar)" in result.output
