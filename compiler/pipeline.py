"""The compiler driver: source file → AST → passes → generated job text.

``compile_source`` dispatches on the file kind; every failure a user can cause surfaces as a
:class:`CompileError`, never as another exception (see :func:`guarded`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from .ast import script as S
from .diagnostics import CompileError, Warning_
from .ir import Checked, Deployment, PipelineGraph, ScriptGraph
from .modules import load_modules
from .passes.const_fold import fold_constants
from .passes.elaboration import Elaboration
from .passes.literal_checks import check_literals
from .passes.resolve import resolve
from .passes.script_ports import script_graph
from .passes.warnings import collect_warnings
from .source import Source

T = TypeVar("T")

KINDS = {".tremor": "script", ".trickle": "query", ".troy": "deploy"}


@dataclass(frozen=True, slots=True)
class CompiledJob:
    """A generated job and what was learnt on the way."""

    source: Source
    kind: str
    tree: object  # the AST after passes (script, query or deploy)
    job: str  # formatted Python source
    warnings: tuple[Warning_, ...] = ()


def kind_of(path: Path) -> str:
    """``script``, ``query`` or ``deploy`` from the file extension."""
    try:
        return KINDS[path.suffix]
    except KeyError:
        raise CompileError(
            f"Unsupported file type `{path.suffix or path.name}`: "
            "expected .tremor, .trickle or .troy"
        ) from None


def guarded(fn: Callable[..., T]) -> Callable[..., T]:
    """Turn any internal failure into a CompileError so no traceback reaches the user."""

    @functools.wraps(fn)
    def wrapper(*args: object, **kwargs: object) -> T:
        try:
            return fn(*args, **kwargs)
        except CompileError:
            raise
        except RecursionError:
            raise CompileError("The program is nested too deeply to compile") from None
        except Exception as err:  # noqa: BLE001 - the boundary that keeps tracebacks away
            raise CompileError(f"Internal compiler error: {type(err).__name__}: {err}") from err

    return wrapper


def read_source(path: Path) -> Source:
    """Read ``path`` or raise a rendered-friendly CompileError."""
    try:
        return Source.from_path(path)
    except OSError as err:
        raise CompileError(f"Can not read {path}: {err.strerror or err}") from None


def parse(source: Source, kind: str) -> object:
    """Parse ``source`` as ``kind`` (script/query/deploy)."""
    if kind == "script":
        from .parse.script import parse_script

        return parse_script(source)
    if kind == "query":
        from .parse.query import parse_query

        return parse_query(source)
    from .parse.deploy import parse_deploy

    return parse_deploy(source)


def _check_literals(script: S.Script, source: Source, _: Elaboration) -> S.Script:
    return check_literals(script, source)  # type: ignore[return-value]


def _resolve(script: S.Script, source: Source, _: Elaboration) -> S.Script:
    return resolve(script, source, load_modules(script, source))


def _fold(script: S.Script, source: Source, _: Elaboration) -> S.Script:
    return fold_constants(script, source)


def _warn(script: S.Script, source: Source, elab: Elaboration) -> S.Script:
    elab.warnings.extend(collect_warnings(script, source))
    return script


#: The tremor-script front end, in order: warnings (read-only, on the script as written, collected
#: once per script into the program's elaboration); literal checks; ``use`` loading and name
#: resolution; constant folding (needs resolved constants and functions).
PASSES: tuple[tuple[str, Callable[[S.Script, Source, Elaboration], S.Script]], ...] = (
    ("warnings", _warn),
    ("literal_checks", _check_literals),
    ("resolve", _resolve),
    ("const_fold", _fold),
)


def new_elaboration() -> Elaboration:
    """One program's elaboration context: the front end is :data:`PASSES`."""
    elab = Elaboration(front=lambda script, source: run_passes(script, source, elab))
    return elab


def run_passes(script: S.Script, source: Source, elab: Elaboration) -> S.Script:
    """``script`` through every pass of :data:`PASSES`."""
    for _, run in PASSES:
        script = run(script, source, elab)
    return script


def script_passes(script: object, source: Source) -> object:
    """A script on its own through the front end (warnings dropped)."""
    return run_passes(script, source, new_elaboration())  # type: ignore[arg-type]


@guarded
def check_program(source: Source, kind: str) -> Checked:
    """Parse, run the front-end passes of ``kind`` and instantiate it: every error a build can
    report surfaces here, and code generation only renders the result."""
    try:
        return _check(source, kind)
    except CompileError as err:
        raise err.with_source(source) from None


def check_source(source: Source, kind: str) -> object:
    """Every check of :func:`check_program`; return the checked tree."""
    return check_program(source, kind).tree


def _check(source: Source, kind: str) -> Checked:
    """Parse, then the language's one elaboration step from AST to IR."""
    tree = parse(source, kind)
    elab = new_elaboration()
    if kind == "script":
        script = elab.script((), tree.items, source)  # type: ignore[attr-defined]
        ir: ScriptGraph | PipelineGraph | Deployment = script_graph(script, source)
        tree = script
    elif kind == "query":  # each language's passes are imported when a build needs them
        from .passes.query_checks import check_query
        from .passes.query_instantiate import instantiate_query

        query = check_query(tree, source, elab)  # type: ignore[arg-type]
        ir = instantiate_query(query, source, elab)
    else:
        from .passes.deploy_instantiate import instantiate_deploy

        ir = instantiate_deploy(tree, source, elab)  # type: ignore[arg-type]
    return Checked(kind, tree, ir, warnings=elab.sorted_warnings(source))


@guarded
def warnings_of(source: Source, kind: str) -> tuple[Warning_, ...]:
    """Tremor's compile-time warnings for ``source``, computed while checking it."""
    return check_program(source, kind).warnings


@guarded
def compile_source(
    source: Source, kind: str, job_name: str = "job.py", schema: tuple | None = None
) -> CompiledJob:
    """Compile ``source`` into a job (``schema``: the declared input schema, see
    ``compiler/lowering/schema.py``)."""
    checked = check_program(source, kind)
    from .codegen.build import build_job

    return CompiledJob(
        source=source,
        kind=kind,
        tree=checked.tree,
        job=build_job(checked, source, job_name, schema),
        warnings=checked.warnings,
    )


def compile_path(path: Path, job_name: str = "job.py", schema: tuple | None = None) -> CompiledJob:
    """Read, parse, check and generate the job for the file at ``path``."""
    return compile_source(read_source(path), kind_of(path), job_name, schema)
