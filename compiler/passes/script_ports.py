"""The output ports and ordering needs of a standalone ``.tremor`` script.

Needs: a script after the tremor-script passes. Establishes: a
:class:`~compiler.ir.graph.ScriptGraph` whose ``ports`` are ``out``, ``err`` and every literal
port named by ``emit … => "p"`` (first-use order), or the error ``Emitting to a port computed
at run time is not supported on Spark yet`` (the job's outputs are fixed when it is built).

>>> from compiler.ast import script as S
>>> emit = S.Emit(value=S.Path(root="event"), port=S.Literal(value="side"))
>>> script_graph(S.Script(items=(emit,))).ports
('out', 'err', 'side')
"""

from __future__ import annotations

from ..ast import script as S
from ..diagnostics import CompileError
from ..ir.graph import Embedded, ScriptGraph
from ..source import Source


def uses_state(tree: S.Node) -> bool:
    """True when the program reads or writes ``state`` (its operator must see events in order)."""
    return any(isinstance(n, S.Path) and n.root == "state" for n in tree.walk())


def emit_ports(tree: S.Node) -> tuple[str, ...]:
    """Literal ports named by ``emit … => "p"``, in first-use order (``out``/``err`` excluded)."""
    ports: list[str] = []
    for node in tree.walk():
        if isinstance(node, S.Emit) and node.port is not None:
            if not (isinstance(node.port, S.Literal) and isinstance(node.port.value, str)):
                raise CompileError(
                    "Emitting to a port computed at run time is not supported on Spark yet",
                    node.port.span,
                    hint="use a string literal port name",
                )
            if node.port.value not in ports and node.port.value not in ("out", "err"):
                ports.append(node.port.value)
    return tuple(ports)


def script_graph(script: S.Script, source: Source | None = None) -> ScriptGraph:
    """The one-node graph facts of ``script`` (see the module docstring)."""
    body = Embedded(script=script, source=source) if source is not None else None
    ports = ("out", "err", *emit_ports(script))
    return ScriptGraph(ports=ports, stateful=uses_state(script), body=body)
