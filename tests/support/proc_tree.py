"""A process and everything it started, read from ``/proc`` (Linux; no psutil here): for killing
a streaming job whole (the Python driver, its JVM, and PySpark's worker daemon, which moves
itself to a process group of its own) and for measuring its memory."""

from __future__ import annotations

import os
import signal
import time

__all__ = ["alive", "descendants", "kill_tree", "tree_rss"]


def _parents() -> dict[int, int]:
    """``pid -> ppid`` of every live process."""
    parents: dict[int, int] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", encoding="utf-8") as handle:
                stat = handle.read()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()
        parents[int(name)] = int(fields[1])
    return parents


def descendants(pid: int) -> list[int]:
    """``pid`` and every live process below it, parents first."""
    children: dict[int, list[int]] = {}
    for child, parent in _parents().items():
        children.setdefault(parent, []).append(child)
    found, todo = [], [pid]
    while todo:
        current = todo.pop(0)
        found.append(current)
        todo.extend(children.get(current, []))
    return found


def kill_tree(pid: int, timeout: float = 60.0) -> None:
    """SIGKILL ``pid``'s process group and every process below it; wait until all are gone."""
    tree = descendants(pid)
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    for member in tree:
        try:
            os.kill(member, signal.SIGKILL)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + timeout
    while any(alive(member) for member in tree):
        if time.monotonic() > deadline:
            raise TimeoutError(f"processes {tree} still alive after SIGKILL")
        time.sleep(0.1)


def alive(pid: int) -> bool:
    """Alive and not a zombie (a zombie holds no memory, files or locks)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as handle:
            stat = handle.read()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2] != "Z"


def tree_rss(pid: int) -> dict[str, int]:
    """Resident bytes of ``pid`` and its descendants by kind: ``driver`` (``pid``), ``jvm``
    (java processes) and ``workers`` (every other descendant: PySpark's Python workers)."""
    page = os.sysconf("SC_PAGE_SIZE")
    totals = {"driver": 0, "jvm": 0, "workers": 0}
    for member in descendants(pid):
        try:
            with open(f"/proc/{member}/statm", encoding="utf-8") as handle:
                rss = int(handle.read().split()[1]) * page
            with open(f"/proc/{member}/comm", encoding="utf-8") as handle:
                comm = handle.read().strip()
        except OSError:
            continue
        kind = "driver" if member == pid else "jvm" if comm == "java" else "workers"
        totals[kind] += rss
    return totals
