"""``http::methods`` and ``http::status`` constants (a subset of Tremor's ``http`` modules)."""

from __future__ import annotations

from http import HTTPStatus

from runtime_support.stdlib._table import constant

for _method in ("GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"):
    constant(f"http::methods::{_method}", _method)

for _status in HTTPStatus:
    constant(f"http::status::{_status.name}", _status.value)
