"""The ``http`` modules: ``methods``, ``status``, ``content_types`` and ``headers`` constants."""

from __future__ import annotations

from http import HTTPStatus

from runtime_support.tremor.stdlib._table import constant

for _method in ("GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"):
    constant(f"http::methods::{_method}", _method)

for _status in HTTPStatus:
    constant(f"http::status::{_status.name}", _status.value)

for _name, _type in (
    ("JSON", "application/json"),
    ("HTML", "text/html"),
    ("CSS", "text/css"),
    ("TEXT", "text/plain"),
    ("XML", "application/xml"),
    ("JS", "application/javascript"),
    ("PNG", "image/png"),
    ("JPG", "image/jpeg"),
    ("GIF", "image/gif"),
):
    constant(f"http::content_types::{_name}", _type)

for _header in (
    "Content-Type",
    "Accept",
    "Authorization",
    "Cache-Control",
    "Content-Length",
    "Content-Disposition",
    "Date",
    "ETag",
    "Expires",
    "Host",
    "If-Modified-Since",
    "If-None-Match",
    "Last-Modified",
    "Location",
    "User-Agent",
    "X-Forwarded-For",
    "X-Forwarded-Host",
    "X-Forwarded-Proto",
):
    constant(f"http::headers::{_header.upper().replace('-', '_')}", _header)
