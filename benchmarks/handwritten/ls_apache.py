"""`ls-apache`: each event is a log line (a JSON string); the script matches it against a grok
pattern: a match replaces the event with the record of the named captures (`response` and
`bytes` as integers), a non-match is emitted unchanged on `discard`; `out` receives both.

The pattern's separators are `·` (U+00B7) as in Tremor's own benchmark file, so on the Apache
log data no line matches: every line reaches `out` unchanged. The regex below is the grok
pattern with the usual grok definitions spelled out (IPORHOST, USER, HTTPDATE, WORD, DATA,
NUMBER, QS), so the job keeps the pattern's meaning on lines that would match."""

from __future__ import annotations

from pyspark.sql import functions as F

_NUMBER = r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)"
_QS = r'"(?:[^"\\]|\\.)*"'
PATTERN = (
    r"^([\w.:-]+)·([\w.@-]+)·([\w.@-]+)·.(\d{2}/\w{3}/\d{4}:\d{2}:\d{2}:\d{2} [+-]\d{4}).·"
    rf'"(\w+)·(.*?)·HTTP/({_NUMBER})"·({_NUMBER})·(?:-|({_NUMBER}))·({_QS})·({_QS})$'
)
NAMES = [
    "clientip",
    "ident",
    "auth",
    "timestamp",
    "verb",
    "request",
    "httpversion",
    "response",
    "bytes",
    "referrer",
    "agent",
]
INTEGERS = {"response", "bytes"}


def _record(line):
    """The grok record of a matching ``line`` (captures by name, integers cast)."""
    fields = []
    for index, name in enumerate(NAMES, start=1):
        value = F.regexp_extract(line, PATTERN, index)
        fields.append((value.cast("long") if name in INTEGERS else value).alias(name))
    return F.struct(*fields)


def run(frame):
    """Each line's grok record when it matches, else the line itself (the JSON string is
    decoded in its own ``select``, once: the record reads ``line`` a dozen times)."""
    decoded = F.from_json(F.concat(F.lit('{"m":'), "value", F.lit("}")), "m string")["m"]
    line = F.col("line")
    matched = F.to_json(_record(line))
    unchanged = F.to_json(line.cast("variant"))
    lines = frame.select(decoded.alias("line"))
    return lines.select(F.when(line.rlike(PATTERN), matched).otherwise(unchanged).alias("value"))
