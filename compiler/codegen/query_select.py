"""Code generation for one trickle ``select`` (and the windows it reads through).

Every expression is compiled by :func:`compiler.codegen.pyscript.generate_script` as a one-item
script. A windowed target is rewritten first: sub-expressions equal to a ``group by`` component
become ``group[i]``, aggregate call *i* becomes ``state[i]`` (the select passes the emitted
aggregate values as ``state``; a user's ``state`` is ``null`` in a select).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..ast import query as Q
from ..ast import script as S
from ..ast.common import Node, transform
from ..diagnostics import CompileError
from ..passes.query_scope import PlainError, Scope, const_value, embed, group_components
from ..source import Source

AGGR_MODULES = (("aggr", "stats"), ("aggr", "win"))


@dataclass
class Emitter:
    """Collects generated blocks, imports and source constants for one job (shared by nested
    pipelines so every name is unique)."""

    prefix: str
    blocks: list[str] = field(default_factory=list)
    imports: set[str] = field(default_factory=set)
    sources: dict[str, str] = field(default_factory=dict)  # source text -> constant name
    counter: int = 0

    def fresh(self, kind: str) -> str:
        """A new identifier ``<prefix>_<kind><n>``."""
        self.counter += 1
        return f"{self.prefix}_{kind}{self.counter}"

    def source_const(self, source: Source) -> str:
        """The module constant holding ``source``'s text."""
        name = self.sources.get(source.text)
        if name is None:
            name = f"{self.prefix.upper()}_SOURCE{len(self.sources) + 1}"
            self.sources[source.text] = name
        return name

    def script(self, script: S.Script, source: Source) -> str:
        """Generate ``script``; return the ``Code(entry, SITES, SOURCE)`` expression."""
        from .pyscript import generate_script

        prefix = self.fresh("s")
        generated = generate_script(script, source, prefix=prefix)
        sites = f"{prefix.upper()}_SITES"
        self.blocks.append(generated.code + f"\n{sites} = {generated.sites!r}\n")
        self.imports.update(generated.imports)
        self.imports.add("runtime_support.windows:Code")
        return f"Code({generated.entry}, {sites}, {self.source_const(source)})"

    def script_entry(self, script: S.Script, source: Source) -> tuple[str, str, str]:
        """Generate a script operator body: ``(entry, sites constant, source constant)``."""
        from .pyscript import generate_script

        prefix = self.fresh("op")
        generated = generate_script(script, source, prefix=prefix)
        sites = f"{prefix.upper()}_SITES"
        self.blocks.append(generated.code + f"\n{sites} = {generated.sites!r}\n")
        self.imports.update(generated.imports)
        return generated.entry, sites, self.source_const(source)

    def expr(self, expr: S.Expr, scope: Scope) -> str:
        """Compile one expression in ``scope``."""
        return self.script(embed((expr,), scope), scope.source)


def is_aggregate(node: Node) -> bool:
    """True for a call written ``aggr::stats::f(…)`` / ``aggr::win::f(…)``."""
    return isinstance(node, S.Call) and tuple(node.module) in AGGR_MODULES


def _index_path(root: str, i: int, span: Any) -> S.Path:
    seg = S.IndexSeg(index=S.Literal(value=i, span=span), span=span)
    return S.Path(root=root, segments=(seg,), span=span)


def rewrite_target(target: S.Expr, select: Q.Select) -> tuple[S.Expr, list[S.Call]]:
    """The windowed target reading ``group[i]``/``state[i]``, plus the aggregate calls."""
    comps = group_components(select.group_by)
    aggrs: list[S.Call] = []

    def pre(node: Node) -> Node:
        if isinstance(node, S.Path) and node.root == "state":
            return S.Path(
                root="expr", expr=S.Literal(value=None), segments=node.segments, span=node.span
            )
        return node

    def visit(node: Node) -> Node:
        if is_aggregate(node):
            aggrs.append(node)  # type: ignore[arg-type]
            return _index_path("state", len(aggrs) - 1, node.span)
        for i, comp in enumerate(comps):
            if isinstance(node, S.Expr) and node == comp:
                return _index_path("group", i, node.span)
        if isinstance(node, S.Node) and not isinstance(node, S.Expr):
            return node
        # Children first would miss whole-expression matches; recurse manually.
        return _map_children(node, visit)

    return visit(transform(target, pre)), aggrs  # type: ignore[return-value]


def _map_children(node: Node, fn: Callable[[Node], Node]) -> Node:
    import dataclasses

    changes = {}
    for f in dataclasses.fields(node):
        if f.name == "span":
            continue
        old = getattr(node, f.name)
        new = _map_value(old, fn)
        if new is not old:
            changes[f.name] = new
    return dataclasses.replace(node, **changes) if changes else node


def _map_value(value: Any, fn: Callable[[Node], Node]) -> Any:
    if isinstance(value, S.Expr):
        return fn(value)
    if isinstance(value, Node):
        return _map_children(value, fn)
    if isinstance(value, tuple):
        items = tuple(_map_value(v, fn) for v in value)
        return value if all(a is b for a, b in zip(items, value, strict=False)) else items
    return value


def group_code(group: Q.GroupBy, em: Emitter, scope: Scope) -> str:
    """``GroupSpec(...)`` source for a ``group by``."""
    em.imports.add("runtime_support.select:GroupSpec")
    if isinstance(group, Q.GroupSet):
        items = ", ".join(group_code(item, em, scope) for item in group.items)
        return f"GroupSpec('set', items=({items},))"
    kind = "each" if isinstance(group, Q.GroupEach) else "expr"
    return f"GroupSpec({kind!r}, code={em.expr(group.expr, scope)})"


def window_code(target: Q.Target, em: Emitter, scope: Scope, args: Any) -> str:
    """``WindowSpec(...)`` source for the window ``target`` names."""
    found = scope.lookup(target)
    if found is None or not isinstance(found[0], Q.DefineWindow):
        raise CompileError(f"Unknown window: {target.qualified}", target.span, source=scope.source)
    defn, wscope = found
    assert isinstance(defn, Q.DefineWindow)
    config = {e.key.name: const_value(e.value, wscope, args, e.span) for e in defn.config}
    if (
        "size" in config
        and "interval" in config
        or (defn.state is not None and ("size" in config or "interval" in config))
    ):
        raise PlainError(
            "Bad window configuration, only one of `size`, `interval`, or `state` is allowed."
        )
    kind = "size" if "size" in config else "interval" if "interval" in config else "state"
    parts = [f"name={target.name!r}", f"kind={kind!r}", f"amount={config.get(kind, 0)!r}"]
    if defn.script is not None:
        checked = embed(defn.script.items, wscope)
        parts.append(f"script={em.script(checked, wscope.source)}")
        last = defn.script.items[-1]
        parts.append(f"reply_span={(last.span.start, last.span.end)!r}")
    if defn.state is not None:
        parts.append(f"init_state={const_value(defn.state, wscope, args, defn.state.span)!r}")
    if "max_groups" in config:
        parts.append(f"max_groups={config['max_groups']!r}")
    em.imports.add("runtime_support.windows:WindowSpec")
    return f"WindowSpec({', '.join(parts)})"


def select_spec(select: Q.Select, em: Emitter, scope: Scope, args: Any) -> str:
    """The name of a module constant holding the select's ``SelectSpec``."""
    parts = []
    target = select.target
    if select.windows:
        target, aggrs = rewrite_target(target, select)
        windows = ", ".join(window_code(w, em, scope, args) for w in select.windows)
        parts.append(f"windows=({windows},)")
        parts.append(f"aggregates={tuple('::'.join((*a.module, a.name)) for a in aggrs)!r}")
        if aggrs:
            arrays = S.ArrayLit(items=tuple(S.ArrayLit(items=a.args) for a in aggrs))
            parts.append(f"aggr_args={em.expr(arrays, scope)}")
    parts.insert(0, f"target={em.expr(target, scope)}")
    if select.where is not None:
        parts.append(f"where={em.expr(select.where, scope)}")
    if select.having is not None:
        parts.append(f"having={em.expr(select.having, scope)}")
    if select.group_by is not None:
        parts.append(f"group={group_code(select.group_by, em, scope)}")
    parts.append(f"args={args!r}")
    name = em.fresh("SELECT").upper()
    em.blocks.append(f"{name} = SelectSpec({', '.join(parts)})\n")
    em.imports.add("runtime_support.select:SelectSpec")
    return name


def is_passthrough(select: Q.Select) -> bool:
    """``select event from a into b`` with nothing else: compiled to a plain link."""
    t = select.target
    return (
        isinstance(t, S.Path)
        and t.root == "event"
        and not t.segments
        and select.where is None
        and select.having is None
        and select.group_by is None
        and not select.windows
    )
