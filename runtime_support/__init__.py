"""tremorc's runtime: what the PySpark jobs tremorc generates run on, in four layers, each
importing only the ones before it (``tests/project/test_import_cycles.py`` checks it):

- :mod:`.tremor`: Tremor's semantics in plain Python (values, JSON text, the script runtime,
  operators, select and windows, the std library, extractors); no pyspark;
- :mod:`.spark`: execution on Spark (stages and their rows, ports, the session, the job's
  command line and files, batch and streaming state, the native and typed plans);
- :mod:`.io`: connectors, codecs and processors;
- :mod:`.flows`: troy flows, their sources, pipelines and sinks wired, in batch or streaming.

A generated job imports every runtime name it uses from here, in one statement; ``__all__`` is
exactly the names the compiler's code generator may emit. Each name is loaded from its module on
first use, so importing one module (the compiler's checks, a Spark worker unpickling a stage)
loads nothing else: neither the other layers nor pyspark.
"""

from __future__ import annotations

import importlib
from typing import Any

#: Module → the names of it a generated job may import.
EXPORTS: dict[str, tuple[str, ...]] = {
    "runtime_support.tremor.builtin_operators": (
        "BucketRoute",
        "bucket_key",
        "builtin_operator",
    ),
    "runtime_support.tremor.errors": (
        "DropSignal",
        "EmitSignal",
        "NO_STATE",
        "TremorError",
    ),
    "runtime_support.tremor.extractors": (
        "Extractor",
        "ExtractorError",
        "KINDS",
        "compile_extractor",
    ),
    "runtime_support.tremor.graph": (
        "GraphSpec",
        "NodeSpec",
        "Passthrough",
        "script_operator",
    ),
    "runtime_support.tremor.jsonio": (
        "canonical_json",
        "decode_json",
        "encode_json",
        "encode_json_pretty",
        "encode_json_utf8",
        "format_float",
        "interp_str",
        "row_decoders",
    ),
    "runtime_support.tremor.patching": (
        "deep_merge",
        "fold_init",
        "fold_step",
        "fold_stops",
        "merge",
        "patch",
    ),
    "runtime_support.tremor.paths": (
        "INDEX_SEGMENT",
        "assign_into_array",
        "bad_key",
        "get_field",
        "get_index",
        "get_range",
        "missing_local",
        "need_type",
        "present",
    ),
    "runtime_support.tremor.script_rt": (
        "LITERAL_RUN",
        "LiteralTable",
        "NO_MATCH",
        "UNSET",
        "assign",
        "assign_key",
        "bad_assign",
        "binary_lit",
        "field_run_case",
        "guard",
        "items_of",
        "match_array",
        "need",
        "no_clause",
        "recursion_limit",
        "render_error",
    ),
    "runtime_support.tremor.select": (
        "GroupSpec",
        "SelectSpec",
        "select_keys",
        "select_operator",
    ),
    "runtime_support.tremor.stdlib.registry": (
        "Function",
        "call",
        "constant",
        "constants",
        "functions",
        "has_constant",
        "lookup",
        "module_exists",
    ),
    "runtime_support.tremor.value_ops": (
        "add",
        "band",
        "binary",
        "bxor",
        "check_bool",
        "check_bool_rhs",
        "div",
        "eq",
        "ge",
        "gt",
        "le",
        "lshr",
        "lt",
        "mod",
        "mul",
        "ne",
        "shl",
        "shr",
        "sub",
        "unary",
        "xor_bool",
    ),
    "runtime_support.tremor.windows": (
        "Code",
        "WindowSpec",
    ),
    "runtime_support.spark.job_cli": ("run_job_cli",),
    "runtime_support.spark.plan": (
        "event_columns",
        "passthroughs",
        "python_splits",
        "refuse_input_meta",
        "stream_outputs",
    ),
    "runtime_support.spark.entry_keys": ("entry_rows",),
    "runtime_support.spark.port_frames": ("port_frames",),
    "runtime_support.spark.prefilter": ("with_native_prefilter",),
    "runtime_support.spark.stages": (
        "REPEAT_ROW_SCHEMA",
        "ROW_SCHEMA",
        "StageSpec",
        "stage_mapper",
    ),
    "runtime_support.spark.state_store": ("state_stage",),
    "runtime_support.spark.typed_plan": (
        "read_native",
        "with_native_rows",
        "with_typed_plan",
    ),
    "runtime_support.io.connectors.base": ("ConnectorSpec",),
    "runtime_support.io.connectors.metrics": ("MetricsSpec",),
    "runtime_support.flows.args": ("FlowArg",),
    "runtime_support.flows.batch": ("FlowSpec",),
    "runtime_support.flows.cli": ("flow_main",),
}
_MODULE_OF = {name: module for module, names in EXPORTS.items() for name in names}

__all__ = sorted(_MODULE_OF)


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
