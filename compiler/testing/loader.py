"""Load generated job source as a module without registering it in ``sys.modules``.

Unregistered, its functions are pickled by value when Spark ships them to Python workers, exactly
as for a job run as ``__main__``.
"""

from __future__ import annotations

import types


def load_job(job_source: str, name: str) -> types.ModuleType:
    """Execute ``job_source`` as a fresh module (its ``__main__`` block does not run)."""
    module = types.ModuleType("tremorc_job")
    module.__file__ = f"<tremorc job for {name}>"
    code = compile(job_source, module.__file__, "exec")
    exec(code, module.__dict__)  # noqa: S102 - the job is our own generated code
    return module
