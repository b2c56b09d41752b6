"""Name scopes of a troy file: flows, connector and pipeline definitions, ``use`` aliases.

A create's target is looked up in its flow's definitions, then through ``use`` aliases in user
modules (``.troy`` module files) or in Tremor's predefined artefacts
(``tremor::connectors::{exit, console}``, ``tremor::pipelines::passthrough``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from ..ast import deploy as D
from ..ast import query as Q
from ..ast import script as S
from ..source import Source
from .deploy_eval import ConstEval
from .elaboration import Elaboration

Definition = D.DefineConnector | Q.DefinePipeline
BUILTIN_ARTEFACTS = (("tremor", "connectors"), ("tremor", "pipelines"))


def _ident(name: str) -> Q.Ident:
    return Q.Ident(name=name)


def _connector(name: str, kind: str, **params: Any) -> D.DefineConnector:
    config = tuple(
        Q.WithEntry(key=_ident(key), value=_literal(value)) for key, value in params.items()
    )
    return D.DefineConnector(name=_ident(name), kind=_ident(kind), config=config)


def _literal(value: Any) -> S.Expr:
    if isinstance(value, list):
        return S.ArrayLit(items=tuple(_literal(v) for v in value))
    return S.Literal(value=value)


def builtin_modules() -> dict[tuple[str, ...], dict[str, Definition]]:
    """Tremor's predefined connectors and pipelines."""
    select = Q.Select(
        target=S.Path(root="event"),
        from_=Q.StreamRef(stream=_ident("in")),
        into=Q.StreamRef(stream=_ident("out")),
    )
    return {
        ("tremor", "connectors"): {
            "exit": _connector("exit", "exit"),
            "console": _connector(
                "console",
                "stdio",
                codec="string",
                preprocessors=["separate"],
                postprocessors=["separate"],
            ),
        },
        ("tremor", "pipelines"): {
            "passthrough": Q.DefinePipeline(name=_ident("passthrough"), stmts=(select,)),
        },
    }


@dataclass
class Scope:
    """What names mean at one point of the file (top level, or inside one flow)."""

    evaluator: ConstEval
    flows: list[D.DefineFlow]
    modules: dict[tuple[str, ...], Any]
    aliases: dict[str, tuple[str, ...]] = field(default_factory=dict)
    local: dict[str, Definition] = field(default_factory=dict)
    flow: D.DefineFlow | None = None
    homes: dict[int, tuple[Source, tuple[S.Use, ...]]] = field(default_factory=dict)
    elab: Elaboration | None = None  # the program's script front end (for pipelines)

    @property
    def source(self) -> Source:
        return self.evaluator.source

    def enter(self, flow: D.DefineFlow) -> Scope:
        """The scope inside ``flow``: its ``use``s and local definitions added."""
        uses = tuple(s for s in flow.stmts if isinstance(s, S.Use))
        local = {
            s.name.name: s
            for s in flow.stmts
            if isinstance(s, (D.DefineConnector, Q.DefinePipeline))
        }
        aliases = dict(self.aliases) | {u.alias: u.path for u in uses}
        return dataclasses.replace(
            self,
            evaluator=self.evaluator.scoped(uses),
            aliases=aliases,
            local=local,
            flow=flow,
            homes=self.homes,
        )

    def _module_items(self, written: tuple[str, ...]) -> dict[str, Any]:
        """Definitions of the module ``written`` (alias-resolved); empty when unknown."""
        path = self.aliases.get(written[0], (written[0],)) + written[1:]
        if path in BUILTIN_ARTEFACTS:
            return builtin_modules()[path]
        module = self.modules.get(path)
        if module is None:
            return {}
        items: dict[str, Any] = {}
        uses = tuple(i for i in getattr(module.tree, "items", ()) if isinstance(i, S.Use))
        for item in getattr(module.tree, "items", ()):
            name = getattr(getattr(item, "name", None), "name", None)
            if isinstance(item, (D.DefineConnector, Q.DefinePipeline, D.DefineFlow)) and name:
                items[name] = item
                self.homes[id(item)] = (module.source, uses)
        return items

    def lookup(self, create: D.Create) -> Definition | None:
        """The definition a ``create`` instantiates (None when undefined)."""
        target = create.target
        found = (
            self._module_items(target.module).get(target.name)
            if target.module
            else self.local.get(target.name)
        )
        wanted = D.DefineConnector if isinstance(create, D.CreateConnector) else Q.DefinePipeline
        return found if isinstance(found, wanted) else None

    def lookup_flow(self, target: Q.Target) -> D.DefineFlow | None:
        """The flow a ``deploy flow`` names (None when undefined)."""
        if target.module:
            found = self._module_items(target.module).get(target.name)
        else:
            found = next((f for f in self.flows if f.name.name == target.name), None)
        return found if isinstance(found, D.DefineFlow) else None

    def source_for(self, node: Any) -> Source:
        """The source text ``node``'s spans point into."""
        return self.homes.get(id(node), (self.source, ()))[0]

    def uses_for(self, defn: Any) -> tuple[S.Use, ...]:
        """The ``use`` scope a definition's expressions are evaluated in."""
        home = self.homes.get(id(defn))
        return home[1] if home is not None else self.evaluator.uses

    def evaluator_for(self, defn: Any) -> ConstEval:
        """An evaluator for the expressions of ``defn`` (its module's source and scope)."""
        home = self.homes.get(id(defn))
        if home is None:
            return self.evaluator
        return ConstEval(home[0], home[1], self.evaluator.modules)


def _file_uses(deploy: D.Deploy) -> tuple[S.Use, ...]:
    """Every ``use`` of the file (top level and inside flows), builtin artefact modules excluded."""
    return tuple(
        n
        for n in deploy.walk()
        if isinstance(n, S.Use) and tuple(n.path[:2]) not in BUILTIN_ARTEFACTS
    )


def load_scope(deploy: D.Deploy, source: Source, elab: Elaboration | None = None) -> Scope:
    """The top-level scope: user modules loaded, top-level ``use`` aliases and flows known."""
    from ..modules import load_modules
    from ..parse.deploy import parse_module
    from ..parse.script import parse_script

    uses = _file_uses(deploy)
    parsers = {".tremor": parse_script, ".troy": parse_module}
    modules = load_modules(S.Script(items=uses), source, parsers=parsers) if uses else {}
    top_uses = tuple(s for s in deploy.stmts if isinstance(s, S.Use))
    evaluator = ConstEval(source, tuple(u for u in top_uses if u in uses), modules)
    flows = [s for s in deploy.stmts if isinstance(s, D.DefineFlow)]
    aliases = {u.alias: u.path for u in top_uses}
    return Scope(evaluator=evaluator, flows=flows, modules=modules, aliases=aliases, elab=elab)
