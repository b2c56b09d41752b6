"""Native Spark pre-filter: drop, in the JVM, input events a program provably drops.

A job compiled with native lowering wraps its graph with :func:`with_native_prefilter`; its
rendered plan (``run_pipeline``) calls :func:`apply_native_prefilter` before ``mapInArrow``.
The predicate is the compiler's three-valued IR (see ``compiler/lowering/predicate.py``) turned
into Columns over ``try_parse_json(value)``.

Invariant: a row is removed only when the predicate is TRUE *and* the row passes
:data:`ELIGIBLE`, which guarantees that Spark's JSON parser and the Python backend's (orjson) read
the line identically: a flat JSON object (its only ``}`` is the last one, so nothing can follow
the root: ``parse_json`` ignores trailing content, orjson rejects it) with no number whose
exponent or length could overflow (parse_json turns 1e400 into the string "Infinity") and no
more ``[``/``{`` than the Python reader nests (``jsonio.MAX_DEPTH``: it raises past that). Rows
that are not eligible, or where the predicate is FALSE or NULL, reach Python unchanged.

Two lowerings of the same IR: the *narrow* one (:func:`narrow_keys` accepts the IR) parses only
the top-level keys the predicate reads, as strings, with ``from_json`` (strict options); the
*variant* one builds a whole ``try_parse_json`` VARIANT. The compiler emits a pre-filter only
for IRs the narrow lowering accepts: it measured faster than Python, the variant one slower
(docs/representation.md).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

import runtime_support.spark.std_native  # noqa: F401  (attaches the lowerings to the registry)
from runtime_support.tremor.graph import GraphSpec
from runtime_support.tremor.jsonio import MAX_DEPTH, encode_json
from runtime_support.tremor.stdlib import registry

__all__ = [
    "NativeGraphSpec",
    "apply_native_prefilter",
    "drop_column",
    "narrow_keys",
    "with_native_prefilter",
]

FLAT_OBJECT = r"^[ \t\n\r]*\{[^}]*\}[ \t\n\r]*$"
RISKY_NUMBER = r"[0-9.][eE][+-]?[0-9]{3}|[0-9]{19}"
KNOWN_NON_NUMBER = ("STRING", "BOOLEAN", "VOID")
# Narrow lowering: a lone surrogate escape (orjson rejects it, Jackson reads it) is not eligible.
SURROGATE = r"\\u[dD][89a-fA-F]"
NARROW_OPTIONS = {"allowSingleQuotes": "false", "allowNonNumericNumbers": "false"}
# The text Spark writes into a string field for a non-string JSON value starts with one of these
# (numbers, arrays, objects) or is true/false; a literal outside them compares exactly.
NON_STRING_TEXT = tuple("-0123456789[{")


@dataclass(frozen=True)
class NativeGraphSpec(GraphSpec):
    """A :class:`GraphSpec` plus a native drop predicate ``(input stream, IR)``."""

    native_drop: tuple[str, tuple] | None = None


def with_native_prefilter(
    spec: GraphSpec, stream: str, ir: tuple, variant: bool = False
) -> NativeGraphSpec:
    """``spec`` whose events on ``stream`` are dropped natively where ``ir`` is TRUE (``variant``:
    by the variant lowering even where the narrow one applies; benchmarks and tests only)."""
    values = {f.name: getattr(spec, f.name) for f in fields(spec) if f.name != "native_drop"}
    return NativeGraphSpec(**values, native_drop=(stream, ir, variant))


def apply_native_prefilter(spec: GraphSpec, df: Any) -> Any:
    """``df`` (prepared inputs: ``stream, value, …``) without the provably dropped rows."""
    native = getattr(spec, "native_drop", None)
    if native is None:
        return df
    from pyspark.sql import functions as F

    stream, ir, variant = native
    drop = (F.col("stream") == F.lit(stream)) & drop_column(ir, F.col("value"), variant)
    return df.filter(~drop)


def drop_column(ir: tuple, text: Any, variant: bool = False) -> Any:
    """Boolean Column, never NULL: TRUE only for eligible rows where ``ir`` is TRUE (narrow
    lowering where it applies, unless ``variant``)."""
    from pyspark.sql import functions as F

    eligible = text.rlike(FLAT_OBJECT) & ~text.rlike(RISKY_NUMBER) & _few_openers(text)
    keys = None if variant else narrow_keys(ir)
    # A predicate may be TRUE without reading the event (`case _ => drop`): the line must parse.
    if keys is None:
        lowered = _Variant(F.try_parse_json(text))
        test = lowered.parsed() & lowered.pred(ir)
    else:
        eligible = eligible & ~text.rlike(SURROGATE)
        test = _narrow_test(ir, text, keys)
    return F.coalesce(F.when(eligible, test), F.lit(False))


def _narrow_test(ir: tuple, text: Any, keys: tuple[str, ...]) -> Any:
    """``ir`` over one ``from_json`` of ``keys``, parsed once: the struct is bound as a lambda
    variable (``transform`` of a one-element array), so the tests' many reads of it do not each
    re-run the parse."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import StringType, StructField, StructType

    schema = StructType([StructField(key, StringType()) for key in keys])
    parsed = F.from_json(text, schema, NARROW_OPTIONS)

    def test(event: Any) -> Any:
        lowered = _Narrow(event, keys)
        return lowered.parsed() & lowered.pred(ir)

    return F.transform(F.array(parsed), test).getItem(0)


def _few_openers(text: Any) -> Any:
    """No more `[` and `{` in the line than the Python reader nests (its screen, too)."""
    from pyspark.sql import functions as F

    count = F.length(text) - F.length(F.translate(text, "[{", ""))
    return (F.length(text) <= MAX_DEPTH) | (count <= MAX_DEPTH)


def narrow_keys(ir: tuple) -> tuple[str, ...] | None:
    """The top-level keys the narrow lowering of ``ir`` reads (sorted), or None when ``ir`` has
    a form outside it: only ``const``, ``and``/``or``/``not``/``first``, ``is_record`` of the
    event, ``defined``/``present`` of a top-level key and ``eq`` of one with a string literal
    no other JSON kind is written as (see :data:`NON_STRING_TEXT`), reading at least one key
    (a NULL in every key read is how a line that does not parse shows)."""
    keys: set[str] = set()
    return tuple(sorted(keys)) if _collect(ir, keys) and keys else None


def _collect(ir: tuple, keys: set[str]) -> bool:
    tag = ir[0]
    if tag == "const" or (tag == "is_record" and ir[1] == ()):
        return True
    if tag in ("and", "or"):
        return _collect(ir[1], keys) and _collect(ir[2], keys)
    if tag == "not":
        return _collect(ir[1], keys)
    if tag == "first":
        return all(_collect(m, keys) and _collect(d, keys) for m, d in ir[1])
    if tag not in ("eq", "defined", "present") or len(ir[1]) != 1 or not isinstance(ir[1][0], str):
        return False
    if tag == "eq" and not _text_exact(ir[2]):
        return False
    keys.add(ir[1][0])
    return True


def _text_exact(lit: Any) -> bool:
    """Only a JSON string is written as ``lit`` into a string field."""
    return (
        isinstance(lit, str)
        and lit not in ("true", "false")
        and not lit.startswith(NON_STRING_TEXT)
    )


class _Variant:
    """IR → Column over one parsed event ``v`` (three-valued: NULL means unknown)."""

    def __init__(self, v: Any):
        from pyspark.sql import functions as F

        self.F, self.v = F, v
        self.unknown = F.lit(None).cast("boolean")

    def parsed(self) -> Any:
        """TRUE where the line parsed (FALSE where it did not)."""
        return self.v.isNotNull()

    def pred(self, ir: tuple) -> Any:
        return getattr(self, "_" + ir[0])(*ir[1:])

    def value(self, segs: tuple) -> Any:
        return self.F.try_variant_get(self.v, _path(segs), "variant")

    def kind(self, segs: tuple) -> Any:
        return self.F.schema_of_variant(self.value(segs))

    def _const(self, flag: bool) -> Any:
        return self.F.lit(flag)

    def _defined(self, segs: tuple) -> Any:
        return self.F.when(self.value(segs).isNotNull(), self.F.lit(True))

    def _is_record(self, segs: tuple) -> Any:
        if not segs:
            return self.F.when(self.v.isNotNull(), self.F.lit(True))
        value = self.value(segs)
        return self.F.when(value.isNotNull(), self.kind(segs).startswith("OBJECT"))

    def _present(self, segs: tuple) -> Any:
        F, parent = self.F, segs[:-1]
        found = F.when(self.value(segs).isNotNull(), F.lit(True))
        if not parent:
            return found.when(self.v.isNotNull(), F.lit(False))
        return found.when(self.kind(parent).startswith("OBJECT"), F.lit(False))

    def _eq(self, segs: tuple, lit: Any) -> Any:
        return self.equals(self.value(segs), lit)

    def _eqv(self, vir: tuple, lit: Any) -> Any:
        return self.equals(self.expr(vir), lit)

    def _truth(self, vir: tuple) -> Any:
        """A boolean value; anything else (or unknown) is unknown (Tremor: no truthiness)."""
        value = self.expr(vir)
        kind = self.F.schema_of_variant(value)
        return self.F.when(kind == "BOOLEAN", self.F.try_variant_get(value, "$", "boolean"))

    def expr(self, vir: tuple) -> Any:
        """A value IR → VARIANT Column; NULL where unknown (missing path, inexact call)."""
        F = self.F
        if vir[0] == "path":
            return self.value(vir[1]) if vir[1] else self.v
        if vir[0] == "lit":
            return F.parse_json(F.lit(encode_json(vir[1])))
        _, name, arg_irs = vir
        lowering = registry.lookup(name).lowering
        args = [self.expr(a) for a in arg_irs]
        result, exact = lowering.build(*args)
        known = F.coalesce(exact, F.lit(False))
        for arg in args:
            known = known & arg.isNotNull()
        return F.when(known, result)

    def equals(self, value: Any, lit: Any) -> Any:
        """Tremor ``value == lit`` for a VARIANT ``value`` (NULL: unknown)."""
        F, kind = self.F, self.F.schema_of_variant(value)
        container = kind.startswith("OBJECT") | kind.startswith("ARRAY")
        if isinstance(lit, bool):
            same, typed, others = "BOOLEAN", "boolean", ("STRING", "VOID")
        elif lit is None:
            return F.when(kind == "VOID", F.lit(True)).when(
                container | kind.isin("STRING", "BOOLEAN"), F.lit(False)
            )
        elif isinstance(lit, int):
            same, typed, others = "BIGINT", "bigint", KNOWN_NON_NUMBER
        else:
            same, typed, others = "STRING", "string", ("BIGINT", "BOOLEAN", "VOID", "DOUBLE")
        known_other = container | kind.isin(*others)
        if isinstance(lit, str):
            known_other = known_other | kind.startswith("DECIMAL")
        got = F.try_variant_get(value, "$", typed)
        return F.when(kind == same, got == F.lit(lit)).when(known_other, F.lit(False))

    def _and(self, p: tuple, q: tuple) -> Any:
        left = self.pred(p)
        return self.F.when(left.isNull(), self.unknown).when(~left, False).otherwise(self.pred(q))

    def _or(self, p: tuple, q: tuple) -> Any:
        left = self.pred(p)
        return self.F.when(left.isNull(), self.unknown).when(left, True).otherwise(self.pred(q))

    def _not(self, p: tuple) -> Any:
        return ~self.pred(p)

    def _first(self, steps: tuple) -> Any:
        result = self.F.lit(False)
        for matched, decided in reversed(steps):
            m = self.pred(matched)
            result = (
                self.F.when(m.isNull(), self.unknown).when(m, self.pred(decided)).otherwise(result)
            )
        return result


class _Narrow(_Variant):
    """The narrow lowering over ``event``, the ``from_json`` struct of the keys read (strings).

    A field is NULL when the key is absent, its value is ``null`` or the line is no valid JSON;
    every test is therefore TRUE/FALSE only on a non-NULL field, and unknown otherwise. Duplicate
    keys: the last wins, as in the Python reader (``jsonio.decode_json``)."""

    def __init__(self, event: Any, keys: tuple[str, ...]):
        super().__init__(event)
        self.keys = keys

    def field(self, segs: tuple) -> Any:
        return self.v.getField(segs[0])

    def _defined(self, segs: tuple) -> Any:
        return self.F.when(self.field(segs).isNotNull(), self.F.lit(True))

    _present = _defined

    def parsed(self) -> Any:
        """Some field read is not NULL (so the line parsed; NULL in all: maybe not)."""
        parsed = self.F.lit(False)
        for key in self.keys:
            parsed = parsed | self.field((key,)).isNotNull()
        return parsed

    def _is_record(self, segs: tuple) -> Any:
        """The event is a record where it parsed: eligible lines are flat JSON objects."""
        return self.F.when(self.parsed(), self.F.lit(True))

    def _eq(self, segs: tuple, lit: Any) -> Any:
        value = self.field(segs)
        return self.F.when(value.isNotNull(), value == self.F.lit(lit))


def _path(segs: tuple) -> str:
    """Variant path of keys/indexes (keys hold no quote or backslash: the compiler checks)."""
    return "$" + "".join(f"[{s}]" if isinstance(s, int) else f"['{s}']" for s in segs)
