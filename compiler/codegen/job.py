"""Render a whole job file: Jinja lays out the structure, black formats the result.

Invariant: everything passed to the template is already-rendered Python text whose user-derived
parts went through ``repr()`` or ``names.py``; the template only loops and places.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

import black
import jinja2

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"
BLACK_MODE = black.Mode(line_length=100, target_versions={black.TargetVersion.PY310})


@dataclass(frozen=True)
class JobParts:
    """The rendered pieces of one job."""

    source_name: str
    imports: tuple[str, ...]  # "module:name"
    sources: tuple[tuple[str, str], ...]  # (constant name, repr of the source text)
    blocks: tuple[str, ...]  # module-level code blocks, in order
    graph: str  # Python expression building the GraphSpec


@cache
def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )


def import_lines(imports: tuple[str, ...]) -> list[str]:
    """``import sys`` and the standard-library imports, a blank line, then the sorted
    ``from runtime_support… import a, b`` lines, one per module."""
    by_module: dict[str, set[str]] = {}
    for item in imports:
        module, name = item.split(":")
        by_module.setdefault(module, set()).add(name)
    stdlib = ["import sys"]
    project = []
    for module in sorted(by_module):
        line = f"from {module} import {', '.join(sorted(by_module[module]))}"
        (project if module.split(".")[0] == "runtime_support" else stdlib).append(line)
    return [*stdlib, "", *project]


def render_job(parts: JobParts, job_name: str = "job.py") -> str:
    """The formatted job source (deterministic: same parts ⇒ same bytes)."""
    imports = (
        *parts.imports,
        "runtime_support.job:run_job_cli",
        "runtime_support.spark_exec:run_graph",
    )
    return render_template(
        "job.py.j2",
        source_name=parts.source_name,
        job_name=job_name,
        imports=imports,
        sources=parts.sources,
        blocks=parts.blocks,
        graph=parts.graph,
        description=repr(f"Tremor program {parts.source_name} on Spark"),
    )


def render_template(
    template: str, *, source_name: str, job_name: str, imports: tuple[str, ...], **context: object
) -> str:
    """Render one job template (header names made comment-safe, import lines built from
    ``"module:name"`` items) and format it with black."""
    text = (
        _environment()
        .get_template(template)
        .render(
            source_name=_comment_safe(source_name),
            job_name=_comment_safe(job_name),
            import_lines=import_lines(imports),
            **context,
        )
    )
    return black.format_str(text, mode=BLACK_MODE)


def _comment_safe(text: str) -> str:
    """A file name fit for a comment line: repr-escaped when it holds anything unusual."""
    if text.isprintable() and '"""' not in text:
        return text
    return repr(text)
