"""Identifier mangling for generated Python code.

Invariant: every identifier the code generators write that stems from user text comes from a
:class:`Names` instance, is a valid non-keyword Python identifier, and is unique for its
``(kind, key)``. Allocation is deterministic: the same calls in the same order give the same names.

>>> n = Names()
>>> n.get("local", ("a",)), n.get("local", ("a",)), n.get("local", ("a-b",))
('l_a', 'l_a', 'l_a_b')
>>> n.get("local", ("a_b",))
'l_a_b_2'
>>> n.temp(), n.temp()
('_t1', '_t2')
>>> Names(scope="job1").get("fn", ("mod", "f"))
'job1_fn_mod_f'
"""

from __future__ import annotations

import keyword
import re

_PREFIX = {
    "local": "l_",
    "shadow": "s_",
    "fn": "fn_",
    "const": "C_",
    "std": "std_",
    "extractor": "ex_",
    "cases": "cases",
    "stdconst": "K_",
}
# Kinds bound at module level: their names carry the scope so several scripts can share a module.
_MODULE_LEVEL = ("fn", "const", "std", "extractor", "stdconst", "cases")

_UNSAFE = re.compile(r"[^0-9A-Za-z_]+")


def sanitize(text: str) -> str:
    """Reduce ``text`` to ASCII identifier characters (readable, not injective)."""
    cleaned = _UNSAFE.sub("_", text)
    return cleaned if cleaned.strip("_") else "x"


class Names:
    """Allocator of unique, deterministic Python identifiers."""

    def __init__(self, reserved: tuple[str, ...] = (), scope: str = "script") -> None:
        self._scope = sanitize(scope)
        self._by_key: dict[tuple[str, tuple[str, ...]], str] = {}
        self._taken: set[str] = set(reserved)
        self._temps = 0

    def get(self, kind: str, key: tuple[str, ...]) -> str:
        """The identifier for ``key`` of ``kind`` (allocated on first use)."""
        found = self._by_key.get((kind, key))
        if found is None:
            found = self._fresh(self._base(kind, key))
            self._by_key[(kind, key)] = found
        return found

    def fresh(self, kind: str, key: tuple[str, ...]) -> str:
        """A new identifier every call, readable after ``key`` (for clause-scoped shadows)."""
        return self._fresh(self._base(kind, key))

    def _base(self, kind: str, key: tuple[str, ...]) -> str:
        base = _PREFIX[kind] + "_".join(sanitize(part) for part in key)
        return f"{self._scope}_{base}" if kind in _MODULE_LEVEL else base

    def temp(self) -> str:
        """A numbered temporary ``_tN``."""
        self._temps += 1
        name = f"_t{self._temps}"
        self._taken.add(name)
        return name

    def _fresh(self, base: str) -> str:
        name = base
        counter = 1
        while name in self._taken or keyword.iskeyword(name) or not name.isidentifier():
            counter += 1
            name = f"{base}_{counter}"
        self._taken.add(name)
        return name


def plan_identifier(*parts: str) -> str:
    """A readable lowercase identifier for a node of the job's plan and its role:
    ``plan_identifier("#select1", "having")`` → ``select1_having`` (not unique by itself: the
    caller deduplicates; see :class:`compiler.codegen.query_select.Emitter`).

    >>> plan_identifier("main/triage/#select1", "target"), plan_identifier("1x", "run")
    ('main_triage_select1_target', 'n_1x_run')
    """
    words = [sanitize(part).strip("_").lower() for part in parts]
    text = "_".join(word for word in words if word) or "x"
    return text if text[0].isalpha() else f"n_{text}"
