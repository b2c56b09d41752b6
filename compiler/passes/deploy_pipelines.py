"""Checks of pipelines embedded in flows, delegated to the trickle checks of
:mod:`compiler.passes.query_checks` (names, locals, aggregates, window references, scripts)."""

from __future__ import annotations

from ..ast import query as Q
from ..ast import script as S
from ..source import Source
from .elaboration import Elaboration
from .query_checks import check_body, check_module_definitions
from .query_scope import Scope, load_query_modules, with_module_scopes


def check_pipeline_definition(defn: Q.DefinePipeline, source: Source, elab: Elaboration) -> None:
    """Run the trickle body checks over ``defn`` as the trickle checker does for a nested
    ``define pipeline`` (its declared ports are reserved names)."""
    scope = Scope(source, tuple(s for s in defn.stmts if isinstance(s, S.Use)), elab=elab)
    with_module_scopes(scope, load_query_modules(defn.stmts, source))
    check_module_definitions(scope)
    ports = tuple(p.name for p in (*defn.from_ports, *defn.into_ports))
    check_body(defn.stmts, scope, ports)
