"""The exact native (Spark Column) lowerings of std-lib functions, attached to the registry's
entries (``Function.lowering``).

Importing this package registers every lowering, then gives each function left without one the
reason (``Function.fallback``). Invariant afterwards: every std function has either
``lowering`` or a non-empty ``fallback``. The plain-Python registry
(:mod:`runtime_support.tremor.stdlib.registry`) knows nothing of Spark; what needs the lowerings
(the native pre-filter, the compiler's lowering, the std-lib doc) imports this package.
"""

from __future__ import annotations

from runtime_support.spark.std_native import collections, math_type, reasons, string
from runtime_support.tremor.stdlib import registry  # noqa: F401  (registers every std function)

__all__ = ["collections", "math_type", "reasons", "string"]

reasons.explain_fallbacks()  # every function now has a lowering or a reason
