"""Tremor's cron expressions (the Rust ``cron`` crate 0.12 that Tremor's crononome uses), read
exactly and handed to ``croniter`` as explicit value lists.

The crate's grammar: ``@yearly|@monthly|@weekly|@daily|@hourly`` or 6 or 7 whitespace-separated
fields ``sec min hour day-of-month month day-of-week [year]``; each field a comma list of ``*``,
``n``, ``a-b``, a name (months ``jan``…, days ``sun``…, any case), a named range, or ``X/step``
(``X`` one of those but a name; ``n/step`` runs from ``n`` to the field's maximum); ``?`` is
``*`` in day-of-month and day-of-week. Days of the week are 1-7 from Sunday; years 1970-2100. A
time matches when every field matches (day-of-month AND day-of-week, unlike Vixie cron).
croniter reads days of the week 0-6 from Sunday and ORs the two day fields by default, so each
field is expanded here to its set of values (days shifted by one) and croniter runs with
``day_or=False``. Invariant: :func:`to_croniter` accepts exactly what the crate accepts (but a
year field of 2100 alone, past croniter's years) and the croniter schedule fires at the crate's
times (UTC) up to the end of 2099.
"""

from __future__ import annotations

import re

__all__ = ["CronError", "to_croniter"]

SHORTHANDS = {
    "@yearly": "0 0 0 1 1 * *",
    "@monthly": "0 0 0 1 * * *",
    "@weekly": "0 0 0 * * 1 *",
    "@daily": "0 0 0 * * * *",
    "@hourly": "0 0 * * * * *",
}
MONTHS = "jan feb mar apr may jun jul aug sep oct nov dec".split()
MONTH_NAMES = {**{m: i + 1 for i, m in enumerate(MONTHS)}, "january": 1, "february": 2}
MONTH_NAMES.update(march=3, april=4, june=6, july=7, august=8, september=9, october=10)
MONTH_NAMES.update(november=11, december=12)
DAY_NAMES = {"sun": 1, "sunday": 1, "mon": 2, "monday": 2, "tue": 3, "tues": 3, "tuesday": 3}
DAY_NAMES.update(wed=4, wednesday=4, thu=5, thurs=5, thursday=5, fri=6, friday=6, sat=7)
DAY_NAMES.update(saturday=7)
#: (name, min, max, names, `?` allowed) per field, in order.
FIELDS = (
    ("Seconds", 0, 59, None, False),
    ("Minutes", 0, 59, None, False),
    ("Hours", 0, 23, None, False),
    ("Days of Month", 1, 31, None, True),
    ("Months", 1, 12, MONTH_NAMES, False),
    ("Days of Week", 1, 7, DAY_NAMES, True),
    ("Years", 1970, 2100, None, False),
)
_NUM, _NAME = r"\d+", r"[A-Za-z]+"
_SPEC = re.compile(rf"(\*|\?|{_NUM}-{_NUM}|{_NUM}|{_NAME}-{_NAME}|{_NAME})(?:/({_NUM}))?")


class CronError(ValueError):
    """An expression the cron crate rejects (or, year 2100, croniter cannot run)."""


def to_croniter(expr: str) -> str:
    """The croniter expression (7 fields, seconds first, years last) of Tremor's ``expr``."""
    text = expr.strip()
    text = SHORTHANDS.get(text, text)
    fields = text.split()
    if len(fields) not in (6, 7):
        raise CronError(
            f"invalid cron expression {expr!r}: 6 or 7 fields (sec min hour day-of-month month "
            "day-of-week [year]) or @yearly/@monthly/@weekly/@daily/@hourly"
        )
    fields += ["*"] * (7 - len(fields))
    out = []
    for field, (name, low, high, names, any_ok) in zip(fields, FIELDS, strict=True):
        values = _field(field, name, low, high, names, any_ok)
        if name == "Years" and values == {2100}:
            raise CronError("year 2100 is past the years croniter schedules (1970-2099)")
        if name == "Years" and len(values) < high - low + 1:
            values.discard(2100)  # croniter's years end with 2099
        if values == set(range(low, high + 1)):
            out.append("*")
        else:
            shift = 1 if name == "Days of Week" else 0
            out.append(",".join(str(v - shift) for v in sorted(values)))
    return " ".join(out)


def _field(text: str, name: str, low: int, high: int, names: dict | None, any_ok: bool) -> set:
    """The values of one field (every item checked against the field's range)."""
    values: set[int] = set()
    for item in text.split(","):
        match = _SPEC.fullmatch(item)
        if match is None or match.group(1) == "?" and not any_ok:
            raise CronError(f"invalid {name} field {text!r}")
        base, step = match.group(1), match.group(2)
        if step is not None and re.fullmatch(_NAME, base):
            raise CronError(f"invalid {name} field {text!r}: a name can not start a period")
        if base in ("*", "?"):
            span = list(range(low, high + 1))
        elif "-" in base:
            first, last = (_ordinal(p, name, low, high, names) for p in base.split("-"))
            if first > last:
                raise CronError(f"Invalid range for {name}: {base}")
            span = list(range(first, last + 1))
        else:
            point = _ordinal(base, name, low, high, names)
            span = list(range(point, high + 1)) if step is not None else [point]
        if step is not None and int(step) == 0:
            raise CronError("range step cannot be zero")
        values.update(span[:: int(step)] if step is not None else span)
    return values


def _ordinal(text: str, name: str, low: int, high: int, names: dict | None) -> int:
    if text.isdigit():
        value = int(text)
    elif names is not None and text.lower() in names:
        value = names[text.lower()]
    else:
        raise CronError(f"'{text}' is not a valid {name} name")
    if not low <= value <= high:
        raise CronError(f"{name} must be between {low} and {high}, not {value}")
    return value
