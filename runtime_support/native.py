"""Native Spark pre-filter: drop, in the JVM, input events a program provably drops.

A job compiled with native lowering wraps its graph with :func:`with_native_prefilter`; its
rendered plan (``run_pipeline``) calls :func:`apply_native_prefilter` before ``mapInArrow``.
The predicate is the compiler's three-valued IR (see ``compiler/lowering/predicate.py``) turned
into Columns over ``try_parse_json(value)``.

Invariant: a row is removed only when the predicate is TRUE *and* the row passes
:data:`ELIGIBLE`, which guarantees that Spark's JSON parser and the Python backend's (orjson) read
the line identically: a flat JSON object (its only ``}`` is the last one, so nothing can follow
the root: ``parse_json`` ignores trailing content, orjson rejects it) with no number whose
exponent or length could overflow (parse_json turns 1e400 into the string "Infinity"). Rows
that are not eligible, or where the predicate is FALSE or NULL, reach Python unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from .graph import GraphSpec
from .jsonio import encode_json
from .stdlib import registry

__all__ = ["NativeGraphSpec", "apply_native_prefilter", "drop_column", "with_native_prefilter"]

FLAT_OBJECT = r"^[ \t\n\r]*\{[^}]*\}[ \t\n\r]*$"
RISKY_NUMBER = r"[0-9.][eE][+-]?[0-9]{3}|[0-9]{19}"
KNOWN_NON_NUMBER = ("STRING", "BOOLEAN", "VOID")


@dataclass(frozen=True)
class NativeGraphSpec(GraphSpec):
    """A :class:`GraphSpec` plus a native drop predicate ``(input stream, IR)``."""

    native_drop: tuple[str, tuple] | None = None


def with_native_prefilter(spec: GraphSpec, stream: str, ir: tuple) -> NativeGraphSpec:
    """``spec`` whose events on ``stream`` are dropped natively where ``ir`` is TRUE."""
    values = {f.name: getattr(spec, f.name) for f in fields(spec)}
    return NativeGraphSpec(**values, native_drop=(stream, ir))


def apply_native_prefilter(spec: GraphSpec, df: Any) -> Any:
    """``df`` (prepared inputs: ``stream, value, …``) without the provably dropped rows."""
    native = getattr(spec, "native_drop", None)
    if native is None:
        return df
    from pyspark.sql import functions as F

    stream, ir = native
    drop = (F.col("stream") == F.lit(stream)) & drop_column(ir, F.col("value"))
    return df.filter(~drop)


def drop_column(ir: tuple, text: Any) -> Any:
    """Boolean Column, never NULL: TRUE only for eligible rows where ``ir`` is TRUE."""
    from pyspark.sql import functions as F

    eligible = text.rlike(FLAT_OBJECT) & ~text.rlike(RISKY_NUMBER)
    lowered = _Lower(F.try_parse_json(text))
    return F.coalesce(F.when(eligible, lowered.pred(ir)), F.lit(False))


class _Lower:
    """IR → Column over one parsed event ``v`` (three-valued: NULL means unknown)."""

    def __init__(self, v: Any):
        from pyspark.sql import functions as F

        self.F, self.v = F, v
        self.unknown = F.lit(None).cast("boolean")

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


def _path(segs: tuple) -> str:
    """Variant path of keys/indexes (keys hold no quote or backslash: the compiler checks)."""
    return "$" + "".join(f"[{s}]" if isinstance(s, int) else f"['{s}']" for s in segs)
