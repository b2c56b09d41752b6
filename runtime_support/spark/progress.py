"""Progress of a job run on a terminal: one status line on stderr, redrawn by a daemon thread
from the stages done and running (with their tasks) and the count of events written so far.

The stages come from the classic session's status tracker, or, under Spark Connect (no
SparkContext there), from the execution progress the server streams to a handler registered
with ``registerProgressHandler`` (removed when the run ends).

Invariant: nothing is written unless the stream is a terminal (``isatty``); the status line is
cleared when the run ends and replaced by one summary line. When the events themselves go to a
terminal (stdout), the status line is cleared before the first one and not redrawn: the output
is the progress from then on.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import Any, TextIO

from runtime_support.spark.session import is_connect

__all__ = ["Progress"]

CLEAR = "\r\x1b[K"


class Progress:
    """``with Progress(spark) as progress: … progress.add(n) …``"""

    def __init__(self, spark: Any, to_stdout: bool = True, stream: TextIO | None = None) -> None:
        """``to_stdout``: the events are written to stdout (which may be the terminal)."""
        self.stream = stream if stream is not None else sys.stderr
        self.active = _isatty(self.stream)
        self.spark = spark
        self.output_is_terminal = to_stdout and _isatty(sys.stdout)
        self.interval, self.delay = 0.25, 0.5  # seconds between redraws; before the first
        self.events = 0
        self.seen: set[Any] = set()  # stages done
        self.shown = False
        self.started = time.monotonic()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="tremorc-progress", daemon=True)
        self.stages: Any = None  # ClassicStages or ConnectStages, while active

    def __enter__(self) -> Progress:
        if self.active:
            source = ConnectStages if is_connect(self.spark) else ClassicStages
            self.stages = source(self.spark)
            self._thread.start()
        return self

    def __exit__(self, kind: object, *exc: object) -> None:
        if not self.active:
            return
        self._halt()
        self.stages.close()
        if self.shown and kind is None:
            self.line()  # count the stages that finished since the last poll
            elapsed = time.monotonic() - self.started
            self.stream.write(
                f"{CLEAR}tremorc: {len(self.seen)} stages done, {self.events:,} events written "
                f"in {elapsed:.1f} s\n"
            )
            self.stream.flush()

    def add(self, count: int = 1) -> None:
        """``count`` more events are about to be written."""
        if self.events == 0 and self.active and self.output_is_terminal:
            self._halt()
        self.events += count

    def _halt(self) -> None:
        """Stop redrawing and clear the status line."""
        if self._thread.is_alive():
            self._stop.set()
            self._thread.join()
            if self.shown:
                self.stream.write(CLEAR)
                self.stream.flush()

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            if time.monotonic() - self.started >= self.delay:
                self.shown = True
                self.stream.write(CLEAR + self.line())
                self.stream.flush()

    def line(self) -> str:
        """The status: stages done and running, tasks of the running stages, events, time."""
        running, done, total = 0, 0, 0
        for stage, tasks_done, tasks, finished in self.stages.poll():
            if finished:
                self.seen.add(stage)
            else:
                running, done, total = running + 1, done + tasks_done, total + tasks
        elapsed = time.monotonic() - self.started
        tasks = f" ({done}/{total} tasks)" if running else ""
        return (
            f"tremorc: {len(self.seen)} stages done, {running} running{tasks}, "
            f"{self.events:,} events written, {elapsed:.0f} s"
        )


Stage = tuple[Any, int, int, bool]  # (stage key, tasks done, tasks, stage finished)


class ClassicStages:
    """Stages of a classic session's jobs, from its SparkContext's status tracker (classic
    sessions only: :class:`Progress` picks :class:`ConnectStages` under Spark Connect)."""

    def __init__(self, spark: Any) -> None:
        self.tracker = spark.sparkContext.statusTracker()  # classic-only

    def poll(self) -> list[Stage]:
        """Every stage with tasks of the session's jobs, running or finished."""
        running = set(self.tracker.getActiveStageIds())
        stages = set(running)
        for job in self.tracker.getJobIdsForGroup():
            info = self.tracker.getJobInfo(job)
            stages.update(info.stageIds if info is not None else ())
        result = []
        for stage in sorted(stages):
            info = self.tracker.getStageInfo(stage)
            if info is None or info.numTasks == 0:
                continue
            finished = stage not in running and info.numCompletedTasks == info.numTasks
            if stage in running or finished:
                result.append((stage, info.numCompletedTasks, info.numTasks, finished))
        return result

    def close(self) -> None:
        """Nothing to release."""


class ConnectStages:
    """Stages of a Spark Connect session's operations, as the server last reported them: a stage
    not yet reported done counts as running (Connect does not tell pending from running)."""

    def __init__(self, spark: Any) -> None:
        self.spark = spark
        self.lock = threading.Lock()
        self.latest: dict[tuple[str | None, int], Stage] = {}
        spark.registerProgressHandler(self)

    def __call__(self, stages: Any, inflight_tasks: int, operation_id: Any, done: bool) -> None:
        """The client's progress handler: keep each stage's latest state."""
        with self.lock:
            for info in stages or ():
                key = (operation_id, info.stage_id)
                complete = info.num_completed_tasks == info.num_tasks
                if done and not complete:  # skipped (its output was reused): not shown
                    self.latest.pop(key, None)
                    continue
                finished = info.done or (done and complete)
                self.latest[key] = (key, info.num_completed_tasks, info.num_tasks, finished)

    def poll(self) -> list[Stage]:
        """Every stage the server reported, running or finished."""
        with self.lock:
            return [stage for stage in self.latest.values() if stage[2] > 0]

    def close(self) -> None:
        """Unregister the handler."""
        self.spark.removeProgressHandler(self)


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
