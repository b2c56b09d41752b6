"""Name scopes of a troy file: flows, connector and pipeline definitions, ``use`` aliases.

A create's target is looked up in its flow's definitions, then through ``use`` aliases in
modules: user module files of any extension, or Tremor's bundled modules (``tremor::connectors``,
``tremor::pipelines``, ``axiom``; sources in ``compiler/lib``, loaded like user modules).
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
        module = self.modules.get(path) or self._bundled(path)
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

    def _bundled(self, path: tuple[str, ...]) -> Any:
        """A bundled module named by its full path without a ``use`` (``tremor::pipelines::
        passthrough``; tremorc has always accepted it, Tremor needs the ``use``)."""
        from ..modules import bundled, load_modules

        if bundled(path) is None:
            return None
        use = S.Use(path=path, alias=path[-1])
        self.modules.update(load_modules(S.Script(items=(use,)), self.source))
        return self.modules.get(path)

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

    def home(self, defn: Any) -> Scope:
        """The scope ``defn`` was written in: for a definition from a module, that module's
        source, ``use`` aliases and constants (names in its args defaults and body mean what
        they mean in its module, as in Tremor); otherwise this scope."""
        home = self.homes.get(id(defn))
        if home is None:
            return self
        return dataclasses.replace(
            self,
            evaluator=ConstEval(home[0], home[1], self.evaluator.modules),
            aliases={u.alias: u.path for u in home[1]},
            local={},
            flow=None,
        )


def _file_uses(deploy: D.Deploy) -> tuple[S.Use, ...]:
    """Every ``use`` of the file (top level and inside flows)."""
    return tuple(n for n in deploy.walk() if isinstance(n, S.Use))


def load_scope(deploy: D.Deploy, source: Source, elab: Elaboration | None = None) -> Scope:
    """The top-level scope: user modules loaded, top-level ``use`` aliases and flows known."""
    from ..modules import load_modules

    uses = _file_uses(deploy)
    modules = load_modules(S.Script(items=uses), source) if uses else {}
    top_uses = tuple(s for s in deploy.stmts if isinstance(s, S.Use))
    evaluator = ConstEval(source, tuple(u for u in top_uses if u in uses), modules)
    flows = [s for s in deploy.stmts if isinstance(s, D.DefineFlow)]
    aliases = {u.alias: u.path for u in top_uses}
    return Scope(evaluator=evaluator, flows=flows, modules=modules, aliases=aliases, elab=elab)
