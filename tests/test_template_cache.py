"""Jinja's compiled templates are kept between builds (``compiler/codegen/job.py``): a build
with a warm cache renders the same job as one that compiles its templates, and a cache that
cannot be written only costs the compile."""

from __future__ import annotations

import jinja2

from compiler.codegen import job as job_module
from compiler.pipeline import compile_source
from compiler.source import Source

PROGRAM = "select event from in where event.n > 1 into out;\n"


def _environment(cache: jinja2.BytecodeCache | None) -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(job_module.TEMPLATES)),
        bytecode_cache=cache,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
    )


def test_a_warm_cache_renders_the_same_job(tmp_path, monkeypatch) -> None:
    cold = compile_source(Source("q.trickle", PROGRAM), "query").job
    cache = job_module._TemplateCache(str(tmp_path))
    monkeypatch.setattr(job_module, "_environment", lambda: _environment(cache))
    first = compile_source(Source("q.trickle", PROGRAM), "query").job
    kept = sorted(p.name for p in tmp_path.iterdir())
    assert kept, "the compiled templates were not kept"
    second = compile_source(Source("q.trickle", PROGRAM), "query").job  # read from the cache
    assert first == second == cold
    assert sorted(p.name for p in tmp_path.iterdir()) == kept


def test_a_cache_that_cannot_be_written_still_builds(tmp_path, monkeypatch) -> None:
    cold = compile_source(Source("q.trickle", PROGRAM), "query").job
    missing = tmp_path / "gone"  # the directory vanished: every dump fails with OSError
    cache = job_module._TemplateCache(str(missing))
    monkeypatch.setattr(job_module, "_environment", lambda: _environment(cache))
    built = compile_source(Source("q.trickle", PROGRAM), "query").job
    assert built == cold and not missing.exists()
