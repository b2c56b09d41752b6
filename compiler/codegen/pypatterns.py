"""``match`` and its patterns as Python ``if``/``elif`` chains.

A pattern compiles against an atomic subject expression to a condition string and an
expression for its bound value (valid once the condition held). Extracted values are captured
with assignment expressions inside the condition, so evaluating the condition has no other
effect. Clause-scoped names (``x = pattern``) get fresh identifiers.
"""

from __future__ import annotations

from runtime_support.tremor.script_rt import LITERAL_RUN

from ..ast import script as ast
from .pybase import INDENT
from .pyexpr import tuple_code
from .pystmts import Finish, StmtGen, event_field

_CMP = {"==": "eq", "!=": "ne", "<": "lt", "<=": "le", ">": "gt", ">=": "ge"}


class PatternGen(StmtGen):
    """Match expressions and patterns (mixed into the script generator)."""

    def match(self, e: ast.Match, finish: Finish | None) -> None:
        subject = self.spill(self.expr(e.target))
        read = event_field(e.target)
        if read is not None and self.fn.is_entry:
            self.fn.read_ok.add(read)  # every case (and what follows) runs after this read
        no_match_site = self.site(e.span, e.span, expand=2)
        self.clauses(e.cases, subject, finish, no_match_site)

    def clauses(
        self,
        cases: tuple[ast.MatchCase, ...],
        subject: str,
        finish: Finish | None,
        site: int,
        on_bind: dict[str, str] | None = None,
    ) -> None:
        """The ``if``/``elif`` chain of ``cases``; no match raises at ``site``."""
        opened = 0
        keyword = "if"
        runs = {**self.literal_runs(cases), **self.field_runs(cases)}
        for number, case in enumerate(cases):
            shadows: dict[str, str] = dict(on_bind or {})
            with self.capture() as pre:
                if number in runs:
                    cond = self.literal_run_condition(runs[number], subject)
                else:
                    cond = self.case_condition(case, subject, shadows)
            if pre and keyword == "elif":
                self.line("else:")
                self.depth += 1
                opened += 1
                keyword = "if"
                pre = [INDENT + line for line in pre]  # written before the `else:` opened
            self.out.extend(pre)
            with self.shadowing(shadows):
                if cond == "True":
                    self.line("else:" if keyword == "elif" else "if True:")
                else:
                    self.line(f"{keyword} {cond}:")
                with self.indented(), self.branch():
                    start = len(self.out)
                    self.body(case.body, finish)
                    if len(self.out) == start:
                        self.line("pass")
            if cond == "True":
                break
            keyword = "elif"
        else:
            self.line("else:")
            with self.indented():
                self.line(f"raise {self.rt('no_clause')}({site})")
        self.depth -= opened

    def literal_runs(self, cases: tuple[ast.MatchCase, ...]) -> dict[int, tuple[str, int, bool]]:
        """Case number → (lookup variable, index in run, first of run) for runs of at least
        ``LITERAL_RUN`` guard-free literal cases, which Tremor looks up in an ordered map (so a
        float finds the integer case it truncates to, unlike ``==``)."""
        runs: dict[int, tuple[str, int, bool]] = {}
        start = 0
        while start < len(cases):
            end = start
            while end < len(cases) and _is_literal_case(cases[end]):
                end += 1
            if end - start >= LITERAL_RUN:
                table = self.names.fresh("cases", ())
                values = ", ".join(repr(_literal(c)) for c in cases[start:end])
                self.module_lines.append(f"{table} = {self.rt('LiteralTable')}(({values},))")
                found = self.temp()
                self.literal_lookups[found] = table
                for index in range(start, end):
                    runs[index] = (found, index - start, index == start)
            start = max(end, start + 1)
        return runs

    def field_runs(self, cases: tuple[ast.MatchCase, ...]) -> dict[int, tuple[str, int, bool]]:
        """Case number → (lookup variable, index in run, first of run) for runs of at least
        ``LITERAL_RUN`` guard-free one-field cases on one key, each ``%{key == "string"}`` or
        ``%{key ~= glob|prefix*|}``: one dict lookup of the field (and one per prefix length)
        instead of a test per case. Exact: only a string equals a string or meets a glob, such
        a glob is ``startswith(prefix)``, and the first case met wins, as the chain's order
        gives."""
        runs: dict[int, tuple[str, int, bool]] = {}
        tests = [_field_test(case) for case in cases]
        start = 0
        while start < len(cases):
            key = None if tests[start] is None else tests[start][0]
            end = start
            while end < len(cases) and tests[end] is not None and tests[end][0] == key:
                end += 1
            if end - start >= LITERAL_RUN:
                table, found = self.names.fresh("cases", ()), self.temp()
                equal: dict[str, int] = {}
                prefixes: dict[int, dict[str, int]] = {}
                for index in range(start, end):
                    _, kind, text = tests[index]  # type: ignore[misc]
                    by_text = equal if kind == "==" else prefixes.setdefault(len(text), {})
                    by_text.setdefault(text, index - start)
                if prefixes:
                    ordered = tuple(sorted(prefixes.items()))
                    self.module_lines.append(f"{table} = ({equal!r}, {ordered!r})")
                else:
                    self.module_lines.append(f"{table} = {equal!r}")
                self.field_lookups[found] = (key, table, bool(prefixes))
                for index in range(start, end):
                    runs[index] = (found, index - start, index == start)
            start = max(end, start + 1)
        return runs

    def literal_run_condition(self, run: tuple[str, int, bool], subject: str) -> str:
        found, index, first = run
        if first:
            if found in self.field_lookups:  # a field run: the field's string in a dict
                key, table, prefixed = self.field_lookups[found]
                field = f"{subject}.get({key!r})"
                if prefixed:
                    self.line(f"{found} = {self.rt('field_run_case')}({table}, {subject}, {key!r})")
                else:
                    self.line(
                        f"{found} = {table}.get({field}, -1) "
                        f"if type({subject}) is dict and type({field}) is str else -1"
                    )
            else:
                self.line(f"{found} = {self.literal_lookups[found]}.lookup({subject})")
        return f"{found} == {index}"

    def case_condition(self, case: ast.MatchCase, subject: str, shadows: dict[str, str]) -> str:
        cond, _ = self.pattern(case.pattern, subject, shadows, want=False)
        if case.guard is None:
            return cond
        with self.shadowing(shadows):
            guard = self.expr(case.guard)
        check = f"{self.rt('guard')}({guard}, {self.site(case.guard.span)})"
        return check if cond == "True" else f"{cond} and {check}"

    # -- patterns ---------------------------------------------------------------------------

    def pattern(
        self, p: ast.Pattern, subj: str, shadows: dict[str, str], want: bool
    ) -> tuple[str, str]:
        """(condition, bound value) of ``p`` against the atomic expression ``subj``."""
        if isinstance(p, ast.AnyPattern):
            return "True", subj
        if isinstance(p, ast.AssignPattern):
            cond, value = self.pattern(p.pattern, subj, shadows, want=True)
            ident = self.names.fresh("shadow", (p.name,))
            shadows[p.name] = ident
            bind = f"({ident} := {value}) is not {self.rt('NO_MATCH')}"
            return (bind if cond == "True" else f"{cond} and {bind}"), ident
        if isinstance(p, ast.ExprPattern):
            exact = _exact_literal_test(p.expr, subj)
            if exact is not None:
                return exact, subj
            with self.shadowing(shadows):
                value = self.expr(p.expr)
            return f"{self.rt('eq')}({subj}, {value})", subj
        if isinstance(p, ast.ExtractorPattern):
            return self.extract(p.extractor, subj)
        if isinstance(p, ast.RecordPattern):
            return self.record_pattern(p, subj, shadows, want)
        if isinstance(p, ast.TuplePattern):
            return self.tuple_pattern(p, subj, shadows, want)
        assert isinstance(p, ast.ArrayPattern)
        return self.array_pattern(p, subj, shadows)

    def extract(self, ext: ast.Extractor, subj: str) -> tuple[str, str]:
        tmp = self.temp()
        call = f"{self.extractor(ext)}.extract({subj}, ctx)"
        return f"({tmp} := {call}) is not {self.rt('NO_MATCH')}", tmp

    def record_pattern(
        self, p: ast.RecordPattern, subj: str, shadows: dict[str, str], want: bool
    ) -> tuple[str, str]:
        conds = [f"type({subj}) is dict"]
        bound: list[str] = []
        for f in p.fields:
            key = repr(f.key)
            item = f"{subj}[{key}]"
            if f.kind == "absent":
                conds.append(f"{key} not in {subj}")
                continue
            conds.append(f"{key} in {subj}")
            if f.kind == "present":
                bound.append(f"{key}: {item}")
            elif f.kind == "extract":
                assert f.extractor is not None
                cond, value = self.extract(f.extractor, item)
                conds.append(cond)
                bound.append(f"{key}: {value}")
            elif f.kind == "cmp":
                assert f.expr is not None and f.op is not None
                with self.shadowing(shadows):
                    value = self.expr(f.expr)
                site = self.site(f.span)
                conds.append(f"{self.rt(_CMP[f.op])}({item}, {value}, {site}) is True")
            else:
                assert f.pattern is not None
                cond, value = self.pattern(f.pattern, item, shadows, want)
                conds.append(cond)
                bound.append(f"{key}: {value}")
        return " and ".join(conds), "{" + ", ".join(bound) + "}"

    def tuple_pattern(
        self, p: ast.TuplePattern, subj: str, shadows: dict[str, str], want: bool
    ) -> tuple[str, str]:
        n = len(p.elements)
        if p.open:
            conds = [f"type({subj}) is list"] + ([f"len({subj}) >= {n}"] if n else [])
        else:
            conds = [f"type({subj}) is list", f"len({subj}) == {n}"]
        values = []
        for i, element in enumerate(p.elements):
            cond, value = self.pattern(element, f"{subj}[{i}]", shadows, want)
            if cond != "True":
                conds.append(cond)
            values.append(value)
        return " and ".join(conds), "[" + ", ".join(values) + "]"

    def array_pattern(
        self, p: ast.ArrayPattern, subj: str, shadows: dict[str, str]
    ) -> tuple[str, str]:
        if not p.elements:
            return f"type({subj}) is list", "[]"
        preds = []
        for element in p.elements:
            if isinstance(element, ast.AnyPattern):
                preds.append("lambda _e: None")
                continue
            cond, value = self.pattern(element, "_e", shadows, want=True)
            preds.append(f"lambda _e: ({value},) if {cond} else {self.rt('NO_MATCH')}")
        tmp = self.temp()
        call = f"{self.rt('match_array')}({subj}, {tuple_code(preds)})"
        nm = self.rt("NO_MATCH")
        return f"type({subj}) is list and ({tmp} := {call}) is not {nm}", tmp


def _exact_literal_test(expr: ast.Expr, subj: str) -> str | None:
    """Tremor's ``==`` against a string, bool or null literal as plain Python (exact: only a
    string equals a string, and ``true``/``false``/``null`` are singletons); None otherwise
    (numbers: ``1 == 1.0`` holds in Tremor, ``1 == true`` does not, so they keep ``eq``)."""
    if not isinstance(expr, ast.Literal):
        return None
    value = expr.value
    if type(value) is str:
        return f"{subj} == {value!r}"
    if value is None or type(value) is bool:
        return f"{subj} is {value!r}"
    return None


_GLOB_SPECIAL = frozenset("*?[")


def _field_test(case: ast.MatchCase) -> tuple[str, str, str] | None:
    """``(key, "==", string)`` of a guard-free ``%{key == "string"}`` case, ``(key, "prefix",
    prefix)`` of a guard-free ``%{key ~= glob|prefix*|}`` case (a prefix without glob
    characters), each with one field; else None."""
    pattern = case.pattern
    if case.guard is not None or not isinstance(pattern, ast.RecordPattern):
        return None
    if len(pattern.fields) != 1:
        return None
    field = pattern.fields[0]
    expr, extractor = field.expr, field.extractor
    if field.kind == "cmp" and field.op == "==" and isinstance(expr, ast.Literal):
        return (field.key, "==", expr.value) if type(expr.value) is str else None
    if field.kind == "extract" and extractor is not None and extractor.name == "glob":
        prefix = extractor.rule[:-1]
        if extractor.rule.endswith("*") and not _GLOB_SPECIAL & set(prefix):
            return field.key, "prefix", prefix
    return None


def _literal(case: ast.MatchCase) -> object:
    pattern = case.pattern
    assert isinstance(pattern, ast.ExprPattern) and isinstance(pattern.expr, ast.Literal)
    return pattern.expr.value


def _is_literal_case(case: ast.MatchCase) -> bool:
    """A guard-free ``case <literal>`` (string, number, bool or null)."""
    pattern = case.pattern
    return (
        case.guard is None
        and isinstance(pattern, ast.ExprPattern)
        and isinstance(pattern.expr, ast.Literal)
    )
