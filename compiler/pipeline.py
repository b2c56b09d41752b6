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

from .diagnostics import CompileError, Warning_
from .ir import Checked
from .source import Source

T = TypeVar("T")

KINDS = {".tremor": "script", ".trickle": "query", ".troy": "deploy"}


@dataclass(frozen=True)
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


def script_passes(script: object, source: Source) -> object:
    """tremor-script: load ``use``d modules, resolve names, fold constants (in this order: folding
    needs resolved constants and functions)."""
    from .modules import load_modules
    from .passes.const_fold import fold_constants
    from .passes.literal_checks import check_literals
    from .passes.resolve import resolve

    check_literals(script, source)  # type: ignore[arg-type]
    modules = load_modules(script, source)
    resolved = resolve(script, source, modules)
    return fold_constants(resolved, source)


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
    tree = parse(source, kind)
    if kind == "script":
        from .passes.script_ports import script_graph

        script = script_passes(tree, source)
        return Checked(kind, script, script_graph(script))  # type: ignore[arg-type]
    if kind == "query":
        from .passes.query_checks import check_query
        from .passes.query_instantiate import instantiate_query

        query = check_query(tree, source)  # type: ignore[arg-type]
        return Checked(kind, query, instantiate_query(query, source))
    from .passes.deploy_instantiate import instantiate_deploy

    return Checked(kind, tree, instantiate_deploy(tree, source))  # type: ignore[arg-type]


@guarded
def warnings_of(source: Source, kind: str) -> tuple[Warning_, ...]:
    """Tremor's compile-time warnings for ``source`` (tremor-script constructs in any kind)."""
    from .passes.warnings import collect_warnings

    tree = parse(source, kind)
    return collect_warnings(tree, source)  # type: ignore[arg-type]


@guarded
def compile_source(source: Source, kind: str, job_name: str = "job.py") -> CompiledJob:
    """Compile ``source`` into a job."""
    checked = check_program(source, kind)
    from .codegen.build import build_job

    return CompiledJob(
        source=source,
        kind=kind,
        tree=checked.tree,
        job=build_job(checked, source, job_name),
        warnings=warnings_of(source, kind),
    )


def compile_path(path: Path, job_name: str = "job.py") -> CompiledJob:
    """Read, parse, check and generate the job for the file at ``path``."""
    return compile_source(read_source(path), kind_of(path), job_name)
