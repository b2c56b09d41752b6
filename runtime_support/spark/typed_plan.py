"""Typed native path: a whole script run as Spark Columns over events of a declared schema.

A job built with ``--schema`` wraps its graph with :func:`with_typed_plan` (the compiler's plan,
see ``compiler/lowering/typed.py``); ``run_pipeline`` calls :func:`read_native` on its inputs
and :func:`with_native_rows` on its source stage.

Invariant (exactness): a row is handled natively only when it *fits*: the JSON text of
``from_json(v)`` gives back the line ``v`` byte for byte (so Spark read every key, in order, with
its type, no duplicate, no explicit ``null`` and no extra key: absent keys are the struct's
NULLs). The text is ``tremor_json``'s where the session has it (``jvm_json``: Tremor's escapes),
else ``to_json``'s, and then the line must also hold no ``\\u`` escape (Jackson and orjson spell
those differently). And no check on its path in the plan is TRUE. Every other row goes,
unchanged, to the Python path, which decides as always (its errors reach ``err`` with Tremor's
message). Only batch jobs use it.

Plan: ONE projection parses each line once and computes the native output, its port and
``_py``; the Python path is an Arrow UDF in that same plan whose input is NULL on native rows
(``native_typed_rows``); a generator emits each event's rows. No split, no cache, no eager pass:
the Python stages of the job get no event.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, fields
from typing import Any

from runtime_support.spark.jvm_json import FUNCTION, has_tremor_json
from runtime_support.spark.plan import STREAM_EVENT_SCHEMA, event_columns, typed_event, typed_fields
from runtime_support.spark.port_frames import empty_frame, is_empty_frame
from runtime_support.spark.prefilter import apply_native_prefilter
from runtime_support.spark.typed_rows import ROWS_TYPE, python_rows
from runtime_support.tremor.graph import GraphSpec

__all__ = [
    "TypedGraphSpec",
    "apply_native",
    "holds_unicode_escape",
    "jackson_escapes_as_tremor",
    "native_row_columns",
    "no_python_events",
    "read_native",
    "typed_columns",
    "typed_source",
    "with_native_rows",
    "with_typed_plan",
]

EVENT_COLUMNS = ("seq", "value", "ingest_ns", "origin", "meta", "stream")
JSON_OPTIONS = {"ignoreNullFields": "true"}
BINARY = {"eq": "__eq__", "ne": "__ne__", "lt": "__lt__", "le": "__le__", "gt": "__gt__"}
BINARY |= {"ge": "__ge__", "and": "__and__", "or": "__or__"}
TRY = {"add": "try_add", "sub": "try_subtract", "mul": "try_multiply", "mod": "try_mod"}


@dataclass(frozen=True)
class TypedGraphSpec(GraphSpec):
    """A :class:`GraphSpec` plus a typed plan ``(input stream, Spark DDL, plan tree)``."""

    typed: tuple[str, str, tuple] | None = None


def with_typed_plan(spec: GraphSpec, stream: str, ddl: str, tree: tuple) -> TypedGraphSpec:
    """``spec`` whose events on ``stream`` run ``tree`` natively where they fit ``ddl``."""
    values = {f.name: getattr(spec, f.name) for f in fields(spec)}
    return TypedGraphSpec(**values, typed=(stream, ddl, tree))


def read_native(
    spec: GraphSpec, spark: Any, inputs: dict[str, Any], streams: tuple[str, ...], streaming: Any
) -> tuple[Any, Any]:
    """A native job's read: ``(events for the Python stages, native output rows or None)`` of
    its input ``streams`` (:func:`apply_native`). A typed input that the typed plan reads as is
    is not first made into JSON events (each DataFrame is one more plan the driver analyses)."""
    typed = getattr(spec, "typed", None)
    if typed is not None and streams == (typed[0],) and streaming is None:
        if not spec.counted and typed_source(spec, inputs.get(typed[0])):
            return apply_native(spec, None, streaming, inputs)
    events = event_columns(spark, inputs.get(streams[0]), streams[0])
    for stream in streams[1:]:  # `seq` orders the events across streams
        events = events.unionByName(event_columns(spark, inputs.get(stream), stream))
    return apply_native(spec, events, streaming, inputs)


def apply_native(
    spec: GraphSpec, events: Any, streaming: Any = None, inputs: Any = None
) -> tuple[Any, Any]:
    """``(events for the Python stages, native output rows or None)``: the pre-filter, then the
    typed plan (batch only). ``inputs``: the job's input DataFrames as given; a typed one on the
    plan's stream whose event columns are the declared schema is read as is
    (:func:`typed_source`, :func:`_typed_source_plan`)."""
    typed = getattr(spec, "typed", None)
    if typed is None or streaming is not None or spec.counted:
        return apply_native_prefilter(spec, events), None
    source = (inputs or {}).get(typed[0])
    if typed_source(spec, source):
        return _typed_source_plan(spec, source)
    from pyspark.sql import functions as F

    stream, ddl, tree = typed
    events = apply_native_prefilter(spec, events)
    parsed = events.select(*EVENT_COLUMNS, F.from_json("value", ddl).alias("_ev"))
    writer = has_tremor_json(events.sparkSession)
    to_python, port, out = typed_columns(tree, F.col("_ev"), F.col("value"), writer)
    to_python = to_python | (F.col("stream") != F.lit(stream))
    decided = parsed.select(
        *EVENT_COLUMNS, to_python.alias("_py"), port.alias("_port"), out.alias("_out")
    )
    # The Python path inside the same plan: a UDF whose input is NULL on native rows (no
    # split of the input, no cache, no pass to learn whether any row needs Python).
    python = python_rows(spec, F.when(F.col("_py"), F.struct(*EVENT_COLUMNS)))
    native = F.struct(*native_row_columns())
    rows = F.when(F.col("_py"), python).when(F.col("_port").isNotNull(), F.array(native))
    result = decided.select("seq", F.inline(F.coalesce(rows, F.array().cast(ROWS_TYPE))))
    return no_python_events(events.sparkSession), result


def _typed_source_plan(spec: GraphSpec, source: Any) -> tuple[Any, Any]:
    """A typed source's two branches, each a projection of ``source``: the rows the plan sends
    to Python, as JSON events for the job's own Python stages, and the native rows. Reading the
    source twice costs no parse (it holds no text), unlike a JSON input's plan; the Python
    branch's filter is a plain disjunction of the plan's checks, which the source's statistics
    can prune. A plan that sends no row to Python (:meth:`_Build.never`) has no Python branch
    (:func:`no_python_events`), and a plan where every row emits no filter: each DataFrame is
    one more plan the driver analyses."""
    from pyspark.sql import functions as F

    stream, ddl, tree = spec.typed  # type: ignore[attr-defined]
    spark = source.sparkSession
    if "seq" not in source.columns:  # numbered once, before the branches filter the rows
        source = source.withColumn("seq", F.monotonically_increasing_id())
    required = frozenset(f.name for f in source.schema.fields if not f.nullable)
    writer = has_tremor_json(spark)
    plan = _source_plan(tree, ddl, required, source, writer)
    if plan.to_python is None:
        python = no_python_events(spark)
    else:
        python = _few_splits(event_columns(spark, source.filter(plan.to_python), stream))
    native = source if plan.native is None else source.filter(plan.native)
    decided = native.select(*plan.decided)
    if plan.emits is not None:
        decided = decided.filter(plan.emits)
    # Two projections: the rewrite reads the JSON twice, which must stay one `to_json` per row
    # (Spark does not collapse a projection into one that would repeat an expensive expression).
    return python, decided.select(*plan.rows)


def no_python_events(spark: Any) -> Any:
    """The Python stages' input when the typed plan sends them no event: an empty frame of
    event columns, known as empty (:func:`with_native_rows`)."""
    return empty_frame(spark, STREAM_EVENT_SCHEMA)


def _few_splits(python: Any) -> Any:
    """The typed source's rows for Python in as many splits as the cluster has cores: usually
    few rows (those the plan cannot decide) over all the source's partitions, and a Python task
    has a fixed cost whatever its rows. A narrow ``coalesce`` (no shuffle, no job of
    its own); `seq` is computed before it, in the source's own partitions. Under Spark Connect
    the cores are unknown: a hash exchange on ``seq`` lets adaptive execution merge them."""
    from runtime_support.spark.session import is_connect

    spark = python.sparkSession
    if is_connect(spark):
        return python.repartition("seq")
    return python.coalesce(max(spark.sparkContext.defaultParallelism, 1))  # classic-only


@dataclass(frozen=True)
class _SourcePlan:
    """The Columns of a typed source's two branches (see :func:`_typed_source_plan`); None
    where the branch or filter is not needed."""

    to_python: Any  # filter of the rows for Python; None: no row goes there
    native: Any  # filter of the rows run natively; None: every row
    decided: tuple[Any, ...]  # seq, their port and output text
    emits: Any  # filter: the decided rows that emit; None: every one does
    rows: tuple[Any, ...]  # seq and the stage row columns, the output in Tremor's escapes


def _source_plan(
    tree: tuple, ddl: str, required: frozenset[str], source: Any, writer: bool
) -> _SourcePlan:
    """The plan's Columns over the columns of ``source`` (its event fields as the struct the
    plan reads, ``ingest_ns`` when it has one); ``writer``: the session has ``tremor_json``."""
    from pyspark.sql import functions as F

    names = [field.name for field in _declared(ddl).fields]
    ingest = F.col("ingest_ns").cast("long") if "ingest_ns" in source.columns else None
    build = _Build(typed_event(source), None, names, required, ingest, writer)
    to_python, port, out = build.tree(tree)
    never = build.never(tree)
    text = None if writer else jackson_escapes_as_tremor(F.col("_out"))  # None: `_out` as is
    return _SourcePlan(
        to_python=None if never else to_python,
        native=None if never else ~to_python,
        decided=(F.col("seq"), port.alias("_port"), out.alias("_out")),
        emits=F.col("_port").isNotNull() if None in _leaf_ports(tree) or not never else None,
        rows=(F.col("seq"), *native_row_columns(text)),
    )


@functools.lru_cache(maxsize=64)
def _declared(ddl: str) -> Any:
    from pyspark.sql.types import StructType

    return StructType.fromDDL(ddl)


#: Jackson spells these control characters' escapes with upper-case hex (``\u000B``,
#: ``\u000E``, ``\u000F``, ``\u001A``-``\u001F``), Tremor (and orjson) with lower-case; it
#: writes every other character as they do (test_typed_source). One rewrite per upper-case
#: digit, each over both ``\u000`` and ``\u001`` where the digit ends one of those escapes:
#: every rewrite is a regex the JVM analyses when the job's plan is built.
_UPPER_DIGITS = (("B", "01"), ("E", "01"), ("F", "01"), ("A", "1"), ("C", "1"), ("D", "1"))


def jackson_escapes_as_tremor(text: Any) -> Any:
    """``text`` (Spark's JSON) with each escape Jackson writes in upper-case hex in Tremor's
    lower case; a ``\\u`` after an odd run of backslashes is text, not an escape."""
    from pyspark.sql import functions as F

    fixed = text
    for digit, tens in _UPPER_DIGITS:
        escape = r"(?<!\\)((?:\\\\)*)\\u00([" + tens + "])" + digit
        fixed = F.regexp_replace(fixed, escape, "$1\\\\u00$2" + digit.lower())
    return F.when(holds_unicode_escape(text), fixed).otherwise(text)


def holds_unicode_escape(text: Any) -> Any:
    """``text`` holds ``\\u``, searched in its UTF-8 bytes (the same answer as a search in the
    string, which Spark runs byte by byte through ``Platform.getByte``)."""
    from pyspark.sql import functions as F

    return F.contains(text.cast("binary"), F.lit(bytearray(b"\\u")))


def _emitted_values(node: tuple) -> list[tuple]:
    """The values the emitting leaves of a plan tree emit (drops and ``python`` emit none)."""
    if node[0] == "leaf":
        return [node[2]] if node[1] is not None else []
    if node[0] == "branch":
        return [value for _, sub in node[2] for value in _emitted_values(sub)]
    return []


def _leaf_ports(node: tuple) -> set[str | None]:
    """The ports of a plan tree's leaves (None: a drop)."""
    if node[0] == "leaf":
        return {node[1]}
    if node[0] == "branch":
        return {port for _, sub in node[2] for port in _leaf_ports(sub)}
    return set()


def native_row_columns(out: Any = None) -> list[Any]:
    """A stage row's columns after ``seq`` for a natively run event: the job output on port
    ``_port`` whose text is ``out`` (default: ``_out``; columns of the plan's decided rows)."""
    from pyspark.sql import functions as F

    return [
        F.array(F.lit(0).cast("long")).alias("path"),
        F.lit(-1).alias("stage"),
        F.col("_port").alias("target"),
        F.lit(None).cast("string").alias("key"),
        F.lit(None).cast("binary").alias("event"),
        (F.col("_out") if out is None else out).alias("value"),
    ]


def with_native_rows(stage: Any, rows: Any, python_events: Any = None) -> Any:
    """The source stage's rows plus the typed path's output rows (same schema: a typed plan has
    one script and no select, so its stage never ``repeats``, see ``compiler/lowering``).
    When the typed plan sent the stage no event (``python_events`` is an empty frame, such as
    :func:`no_python_events`), the native rows alone: a stage given no event emits nothing, and
    the union's extra Python task is saved."""
    if rows is None:
        return stage
    if python_events is not None and is_empty_frame(python_events):
        return rows
    return stage.unionByName(rows)


def typed_columns(tree: tuple, ev: Any, text: Any, writer: bool = False) -> tuple[Any, Any, Any]:
    """``(to_python, port, out)`` Columns of ``tree`` over the parsed struct ``ev`` of the line
    ``text``: ``to_python`` never NULL; ``port`` NULL for a drop. ``writer``: JSON text is
    written by ``tremor_json``, whose escapes are Tremor's, so a line that holds ``\\u``
    escapes fits when they are the ones Tremor writes."""
    from pyspark.sql import functions as F

    build = _Build(ev, text, writer=writer)
    to_python, port, out = build.tree(tree)
    fits = F.coalesce(build.to_text(ev) == text, F.lit(False))
    if not writer:
        fits = fits & ~holds_unicode_escape(text)
    return ~fits | to_python, port, out


def typed_source(spec: GraphSpec, source: Any) -> bool:
    """``source`` is a typed input (no ``value``) whose event columns have the names and types
    of ``spec``'s declared schema, in its order, and ``spec`` has no pre-filter (it reads
    text). Any other typed input runs on its JSON (``spark_exec.event_columns``)."""
    if source is None or "value" in source.columns or getattr(spec, "native_drop", None):
        return False
    declared = _declared(spec.typed[1])  # type: ignore[attr-defined]
    given = {field.name: field.dataType for field in source.schema.fields}
    names = typed_fields(source)
    return names == declared.names and all(
        _same_type(given[f.name], f.dataType) for f in declared.fields
    )


def _same_type(given: Any, declared: Any) -> bool:
    """The same Spark type, nullability aside."""
    from pyspark.sql.types import ArrayType, StructType

    if isinstance(declared, StructType):
        return (
            isinstance(given, StructType)
            and given.names == declared.names
            and all(
                _same_type(a.dataType, b.dataType) for a, b in zip(given, declared, strict=True)
            )
        )
    if isinstance(declared, ArrayType):
        return isinstance(given, ArrayType) and _same_type(given.elementType, declared.elementType)
    return type(given) is type(declared)


class _Build:
    """Plan IR → Columns over the parsed event ``ev``: of the line ``text``, or of a typed
    source whose event fields are ``fields`` (``text`` None)."""

    def __init__(
        self,
        ev: Any,
        text: Any,
        fields: list[str] | None = None,
        required: frozenset[str] = frozenset(),
        ingest: Any = None,
        writer: bool = False,
    ):
        from pyspark.sql import functions as F

        self.F, self.ev, self.text, self.fields = F, ev, text, fields
        self.writer = writer  # JSON text by tremor_json (else to_json, Jackson's escapes)
        self.required = required  # top-level fields a typed source declares NOT NULL
        # the event's ingest_ns (NULL, which sends its row to Python, when the source has none)
        self.ingest = ingest if ingest is not None or text is not None else F.lit(None).cast("long")
        self.no_text = F.lit(None).cast("string")
        self.shared: Any = None  # the one output of a tree whose leaves all emit one value
        self.built: dict[str, Any] = {}  # repr(ir) -> its Column (see value)

    def tree(self, node: tuple) -> tuple[Any, Any, Any]:
        """``(to_python, port, out)``. When every emitting leaf emits the same value, ``out``
        is that value's JSON on every row, outside the decision tree: one expression in the
        plan however many leaves (rows that do not emit never read it); when every leaf emits
        on one port, ``port`` is that literal (rows that reach no leaf go to Python)."""
        values = {repr(value) for value in _emitted_values(node)}
        ports = _leaf_ports(node)
        if len(values) == 1 and len(ports) == 1 and None not in ports and self.never(node):
            # every row emits the one value on the one port, none goes to Python: no decision
            # to build (a classifier whose outcome only sets metadata nobody reads)
            value = next(iter(_emitted_values(node)))
            return self.F.lit(False), self.F.lit(next(iter(ports))), self.json(value)
        if len(values) == 1 and self.shared is None:
            self.shared = self.json(next(iter(_emitted_values(node))))
            py, port, _ = self.tree(node)
            return py, port, self.shared
        py, port, out, _ = self._tree(node)
        if len(ports) == 1 and None not in ports:
            # every leaf emits on one port (a row with no leaf goes to Python): no decision
            port = self.F.lit(next(iter(ports)))
        return py, port, out

    def _tree(self, node: tuple) -> tuple[Any, Any, Any, bool]:
        """``(to_python, port, out, never_python)``: ``never_python`` when no row can go to
        Python here (the decision is then the literal FALSE, so Spark prunes the branch)."""
        F = self.F
        if node[0] == "python":
            return F.lit(True), self.no_text, self.no_text, False
        if node[0] == "leaf":
            _, port, value, checks = node
            py, never = self.any(checks), not self.live(checks)
            if port is None:
                return py, self.no_text, self.no_text, never
            out = self.no_text if self.shared is not None else self.json(value)
            return py, F.lit(port), out, never
        _, checks, cases = node
        # A row whose check is TRUE goes to Python whichever case it takes, so the cases decide
        # only ``port`` and ``out`` (read on rows that stay native) and their own Python rows.
        pre, live = self.any(checks), bool(self.live(checks))
        arms = []
        for cond, sub in cases:
            arms.append((self.value(cond), *self._tree(sub)))
            if cond == ("lit", True):  # the cases after it are never reached
                break
        if not arms:  # no case matches: every row goes to Python
            return F.lit(True), self.no_text, self.no_text, False
        py, port, out = (self._case(arms, i) for i in (1, 2, 3))
        covered = cases[len(arms) - 1][0] == ("lit", True)  # no row falls through to Python
        if covered and all(arm[4] for arm in arms):
            return pre, port, out, not live
        return pre | py.otherwise(True), port, out, False

    def never(self, node: tuple) -> bool:
        """``_tree(node)``'s ``never_python``, computed without building a Column."""
        if node[0] == "python":
            return False
        if node[0] == "leaf":
            return not self.live(node[3])
        _, checks, cases = node
        if self.live(checks):
            return False
        arms = []
        for cond, sub in cases:
            arms.append(sub)
            if cond == ("lit", True):
                break
        covered = bool(arms) and cases[len(arms) - 1][0] == ("lit", True)
        return covered and all(self.never(sub) for sub in arms)

    def _case(self, arms: list, i: int) -> Any:
        """``CASE WHEN cond THEN arm[i] ...`` over the arms ``(cond, py, port, out, never)``."""
        column = self.F.when(arms[0][0], arms[0][i])
        for arm in arms[1:]:
            column = column.when(arm[0], arm[i])
        return column

    def live(self, checks: tuple) -> list:
        """The checks that may be TRUE (an absent-key check of a NOT NULL field never is)."""
        return [c for c in checks if not self.never_null(c)]

    def never_null(self, check: tuple) -> bool:
        """``check`` is ``isnull`` of a top-level field the typed source declares NOT NULL."""
        return (
            check[0] == "isnull"
            and check[1][:2] == ("get", ("ev",))
            and check[1][2] in self.required
        )

    def to_text(self, struct: Any) -> Any:
        """The JSON text of ``struct``: ``tremor_json`` where the session has it, else
        ``to_json`` (Jackson's escapes, made Tremor's where the plan's rows are written)."""
        if self.writer:
            return self.F.call_function(FUNCTION, struct)
        return self.F.to_json(struct, JSON_OPTIONS)

    def json(self, value: tuple) -> Any:
        """The JSON text of a leaf's value; ``("extend", entries)`` appends to the (fitting)
        input line: ``{...}`` + ``,"k":v...}`` (no comma after ``{}``)."""
        F = self.F
        if value[0] != "extend":
            return self.to_text(self.value(value))
        if self.text is None and not value[1]:  # a typed source's event, unchanged
            return self.to_text(self.ev)
        if self.text is None:  # a typed source: its fields, then the new ones, one struct
            assert self.fields is not None
            old = [self.ev.getField(name).alias(name) for name in self.fields]
            new = [self.value(v).alias(k) for k, v in value[1]]
            return self.to_text(F.struct(*old, *new))
        if not value[1]:
            return self.text
        added = self.to_text(self.value(("struct", value[1])))
        head = F.substring(self.text, 1, F.length(self.text) - 1)
        comma = F.when(self.text == F.lit("{}"), F.lit("")).otherwise(F.lit(","))
        return F.concat(head, comma, F.substring(added, 2, 1 << 30))

    def any(self, checks: tuple) -> Any:
        """``check OR check ...`` of the live checks (FALSE when none): a plain disjunction,
        which a source's statistics can prune (Parquet, Spark's in-memory cache)."""
        result = None
        for check in self.live(checks):
            result = self.value(check) if result is None else result | self.value(check)
        return self.F.lit(False) if result is None else result

    def value(self, ir: tuple) -> Any:
        """The Column of ``ir``; the same subexpression (a field read, a literal) built once
        (each Column call is a round trip to the JVM; Columns are immutable, so sharing is
        safe)."""
        key = repr(ir)
        column = self.built.get(key)
        if column is None:
            column = self.built[key] = self._value(ir)
        return column

    def _value(self, ir: tuple) -> Any:
        F, op = self.F, ir[0]
        if op == "ev":
            return self.ev
        if op == "ingest":  # the event's ingest_ns column (NULL: a check sends it to Python)
            return F.col("ingest_ns") if self.ingest is None else self.ingest
        if op == "get":
            return self.value(ir[1]).getField(ir[2])
        if op == "lit":
            lit = F.lit(ir[1])
            return lit.cast("bigint") if type(ir[1]) is int else lit
        if op == "struct":
            return F.struct(*[self.value(v).alias(k) for k, v in ir[1]])
        if op in BINARY:
            return getattr(self.value(ir[1]), BINARY[op])(self.value(ir[2]))
        if op in TRY:
            return getattr(F, TRY[op])(self.value(ir[1]), self.value(ir[2]))
        if op == "array_contains":  # an array holding NULL and not the item: Tremor's false
            found = F.array_contains(self.value(ir[1]), self.value(ir[2]))
            return F.coalesce(found, F.lit(False))
        if op == "concat":
            return F.concat(self.value(ir[1]), self.value(ir[2]))
        if op in ("startswith", "endswith", "contains"):
            return getattr(self.value(ir[1]), op)(self.value(ir[2]))
        if op == "length":
            return F.length(self.value(ir[1]))
        if op == "neg":
            return F.try_subtract(F.lit(0).cast("bigint"), self.value(ir[1]))
        if op == "not":
            return ~self.value(ir[1])
        if op == "isnull":
            return self.value(ir[1]).isNull()
        if op == "notnull":
            return self.value(ir[1]).isNotNull()
        raise ValueError(f"unknown typed IR {op!r}")
