"""Progress of a job run on a terminal: one status line on stderr, redrawn by a daemon thread
that polls ``SparkContext.statusTracker()`` (stages done and running, tasks) and the count of
events written so far.

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
        self.seen: set[int] = set()  # stages done
        self.shown = False
        self.started = time.monotonic()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="tremorc-progress", daemon=True)

    def __enter__(self) -> Progress:
        if self.active:
            self._thread.start()
        return self

    def __exit__(self, kind: object, *exc: object) -> None:
        if not self.active:
            return
        self._halt()
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
        tracker = self.spark.sparkContext.statusTracker()
        running = set(tracker.getActiveStageIds())
        stages = set(running)
        for job in tracker.getJobIdsForGroup():
            info = tracker.getJobInfo(job)
            stages.update(info.stageIds if info is not None else ())
        done, total = 0, 0
        for stage in sorted(stages):
            info = tracker.getStageInfo(stage)
            if info is None or info.numTasks == 0:
                continue
            if stage in running:
                done, total = done + info.numCompletedTasks, total + info.numTasks
            elif info.numCompletedTasks == info.numTasks:
                self.seen.add(stage)
        elapsed = time.monotonic() - self.started
        tasks = f" ({done}/{total} tasks)" if running else ""
        return (
            f"tremorc: {len(self.seen)} stages done, {len(running)} running{tasks}, "
            f"{self.events:,} events written, {elapsed:.0f} s"
        )


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
