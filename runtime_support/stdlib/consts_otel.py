"""``cncf::otel`` and ``google::cloud::logging`` severity constants (a subset)."""

from __future__ import annotations

from runtime_support.stdlib._table import constant

_OTEL_SEVERITY = ["UNSPECIFIED"] + [
    f"{level}{n if n > 1 else ''}"
    for level in ("TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL")
    for n in range(1, 5)
]
for _n, _name in enumerate(_OTEL_SEVERITY):
    constant(f"cncf::otel::logs::severity::{_name}", _n)

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
