"""CPU seconds a local Spark spends: the driver (this process), the JVM it started and every
process under the JVM (the Python workers), read from ``/proc`` (Linux; ``None`` elsewhere).

On a shared machine the wall time of a job stretches with other load; its CPU time much less
so: it counts the work done, not the waiting. The suite reports both. Processes that ended
during a run count once their parent reaped them (``cutime``); Spark keeps its Python workers
for the session, so a run's figure is the work of that run.
"""

from __future__ import annotations

import os
from typing import Any

_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _stat(pid: int) -> tuple[int, float] | None:
    """``(parent pid, CPU seconds of the process and its reaped children)``, or None."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    # After the command: state, ppid, ...; utime, stime, cutime, cstime are fields 14-17.
    return int(fields[1]), sum(int(x) for x in fields[11:15]) / _TICK


def tree_cpu_seconds(root: int) -> float:
    """CPU seconds used so far by process ``root`` and every live process under it."""
    stats = {}
    for name in os.listdir("/proc"):
        if name.isdigit() and (stat := _stat(int(name))) is not None:
            stats[int(name)] = stat
    children: dict[int, list[int]] = {}
    for pid, (parent, _cpu) in stats.items():
        children.setdefault(parent, []).append(pid)
    total, todo = 0.0, [root]
    while todo:
        pid = todo.pop()
        total += stats.get(pid, (0, 0.0))[1]
        todo += children.get(pid, [])
    return total


def spark_cpu_seconds(spark: Any) -> float | None:
    """CPU seconds used so far by this driver, ``spark``'s JVM and its descendants."""
    proc = getattr(spark.sparkContext._gateway, "proc", None)
    if proc is None or not os.path.isdir("/proc"):
        return None
    own = os.times()
    return tree_cpu_seconds(proc.pid) + own.user + own.system
