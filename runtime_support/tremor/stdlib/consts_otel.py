"""``cncf::otel`` and ``google::cloud::logging`` constants (severities, span status codes,
metric temporality). The otel modules that define functions are Tremor sources bundled with the
compiler (``compiler/lib/cncf``)."""

from __future__ import annotations

from runtime_support.tremor.stdlib._table import constant

_OTEL_SEVERITY = ["UNSPECIFIED"] + [
    f"{level}{n if n > 1 else ''}"
    for level in ("TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL")
    for n in range(1, 5)
]
for _n, _name in enumerate(_OTEL_SEVERITY):
    constant(f"cncf::otel::logs::severity::{_name}", _n)

for _n, _name in enumerate(("UNSPECIFIED", "DELTA", "CUMULATIVE")):
    constant(f"cncf::otel::metrics::temporality::{_name}", _n)
for _n, _name in enumerate(("UNSET", "OK", "ERROR")):
    constant(f"cncf::otel::trace::status::code::{_name}", _n)
_DEPRECATED_STATUS = (
    "OK CANCELLED UNKNOWN_ERROR INVALID_ARGUMENT DEADLINE_EXCEEDED NOT_FOUND ALREADY_EXISTS "
    "PERMISSION_DENIED RESOURCE_EXHAUSTED FAILED_PRECONDITION ABORTED OUT_OF_RANGE UNIMPLEMENTED "
    "INTERNAL_ERROR UNVAILABLE DATA_LOSS UNAUTHENTICATED"  # (sic) UNVAILABLE, as Tremor spells it
)
for _n, _name in enumerate(_DEPRECATED_STATUS.split()):
    constant(f"cncf::otel::trace::status::deprecated::{_name}", _n)

_GCP_SEVERITY = {
    "DEFAULT": 0,
    "DEBUG": 100,
    "INFO": 200,
    "NOTICE": 300,
    "WARNING": 400,
    "ERROR": 500,
    "CRITICAL": 600,
    "ALERT": 700,
    "EMERGENCY": 800,
}
for _name, _value in _GCP_SEVERITY.items():
    constant(f"google::cloud::logging::severity::{_name}", _value)
