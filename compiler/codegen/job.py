"""Render a whole job file's text with Jinja (``build.build_job`` formats it with black, once).

Invariant: everything passed to the template is already-rendered Python text whose user-derived
parts went through ``repr()`` or ``names.py``; the template only loops and places.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import jinja2

from .graph import NATIVE_IMPORTS
from .stages import READ_INPUT

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"


@dataclass(frozen=True, slots=True)
class JobParts:
    """The rendered pieces of one job."""

    source_name: str
    imports: tuple[str, ...]  # "module:name"
    sources: tuple[tuple[str, str], ...]  # (constant name, repr of the source text)
    blocks: tuple[str, ...]  # module-level code blocks, in order
    graph: str  # Python expression building the GraphSpec
    plan: dict[str, object]  # the rendered Spark plan (``stages.plan_context``)
    native: bool = False  # the plan calls the native hooks (pre-filter, typed plan)


@cache
def _environment() -> jinja2.Environment:
    """The process's one Jinja environment over ``templates/`` (undefined names are errors)."""
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )


RUN_DOC = (
    "Run the pipeline: ``inputs`` maps stream names to DataFrames with a JSON ``value`` column;\n"
    "    returns one DataFrame (``value``, ``seq``, ``sub``, ``meta``) per output port.\n"
    "    ``flush_at_end``: a final tick after the last event flushes open time windows and timed\n"
    "    batches."
)


def isort_key(name: str) -> tuple[int, str]:
    """isort's (and ruff's) order of imported names: constants, then classes, then the rest."""
    return (0 if name.isupper() else 1 if name[:1].isupper() else 2, name)


def import_lines(imports: tuple[str, ...]) -> list[str]:
    """``import sys`` and the standard-library imports, then ``pyspark``, sorted, one line per
    module, then the one ``from runtime_support import a, b`` statement of every runtime name
    (whichever module defines it: the package exports them all), groups apart."""
    by_module: dict[str, set[str]] = {}
    for item in imports:
        module, name = item.split(":")
        top = module.split(".")[0]
        by_module.setdefault(RUNTIME if top == RUNTIME else module, set()).add(name)
    groups: dict[str, list[str]] = {"stdlib": ["import sys"], "pyspark": [], RUNTIME: []}
    for module in sorted(by_module):
        line = f"from {module} import {', '.join(sorted(by_module[module], key=isort_key))}"
        top = module.split(".")[0]
        groups[top if top in groups else "stdlib"].append(line)
    lines: list[str] = []
    for group in groups.values():
        lines += [*group, ""] if group else []
    return lines[:-1]


RUNTIME = "runtime_support"
_RUNTIME_IMPORT = re.compile(r"^from runtime_support import (\([^)]*\)|.*)$", re.M)


def with_runtime_names(job: str, *names: str) -> str:
    """``job`` (rendered) whose ``from runtime_support import …`` statement also imports
    ``names``, all sorted on one line (the caller formats the job again)."""
    found = _RUNTIME_IMPORT.search(job)
    assert found, "every rendered job imports from runtime_support"
    listed = {name.strip() for name in found.group(1).strip("()").split(",")} - {""}
    line = f"from runtime_support import {', '.join(sorted(listed | set(names), key=isort_key))}"
    return job[: found.start()] + line + job[found.end() :]


def render_job(parts: JobParts, job_name: str = "job.py") -> str:
    """The job's source text, not yet formatted (deterministic: same parts ⇒ same bytes)."""
    imports = (
        *parts.imports,
        *parts.plan["plan_imports"],  # type: ignore[misc]
        "runtime_support.spark.job_cli:run_job_cli",
    )
    if parts.native:  # it reads its input with read_native
        imports = tuple(item for item in imports if item != READ_INPUT)
    return render_template(
        "job.py.j2",
        source_name=parts.source_name,
        job_name=job_name,
        imports=(*imports, *NATIVE_IMPORTS) if parts.native else imports,
        sources=parts.sources,
        blocks=parts.blocks,
        graph=parts.graph,
        description=repr(f"Tremor program {parts.source_name} on Spark"),
        run_doc=RUN_DOC,
        native=parts.native,
        **parts.plan,
    )


def render_template(
    template: str,
    *,
    source_name: str,
    job_name: str,
    imports: tuple[str, ...],
    **context: object,
) -> str:
    """Render one job template (header names made comment-safe, import lines built from
    ``"module:name"`` items); the text is valid Python, not yet formatted."""
    return (
        _environment()
        .get_template(template)
        .render(
            source_name=comment_safe(source_name),
            job_name=comment_safe(job_name),
            import_lines=import_lines(imports),
            **context,
        )
    )


def comment_safe(text: str) -> str:
    """A file name fit for a comment line: repr-escaped when it holds anything unusual."""
    if text.isprintable() and '"""' not in text:
        return text
    return repr(text)
