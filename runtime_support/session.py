"""The embedded local SparkSession used by ``python job.py`` and ``tremorc test``.

Under ``spark-submit`` the session the launcher configured is reused unchanged: ``getOrCreate``
only fills in a master when none was given.

Quiet mode (a job run without ``--verbose``): the JVM is started with its stderr going to a log
file (:data:`SPARK_LOG`, removed when the job ends without error), so its banner, warnings and
log lines never reach the user's terminal; Python's own stderr is untouched.
"""

from __future__ import annotations

import atexit
import os
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from importlib.resources import files

__all__ = [
    "get_session",
    "keep_log",
    "spark_log",
    "under_spark_submit",
]

_LOCAL_CONF = {
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.shuffle.partitions": "2",
    "spark.sql.execution.arrow.pyspark.enabled": "true",
    "spark.driver.memory": "2g",
}
_LOG: list[str] = []  # the quiet JVM's log file, once started


def get_session(
    app_name: str = "tremorc-job", quiet: bool = False
):  # -> SparkSession (lazy import keeps start-up cheap)
    """Return the active SparkSession, creating an embedded ``local[2]`` one when there is none
    (with ``quiet``, its JVM writes to a log file instead of stderr).

    Python workers are pinned to this interpreter so they see the same pyarrow/orjson.
    """
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        return active
    builder = SparkSession.builder.appName(app_name)
    if under_spark_submit():
        return builder.getOrCreate()
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    builder = builder.master("local[2]")
    for key, value in _LOCAL_CONF.items():
        builder = builder.config(key, value)
    log_config = files("runtime_support.data").joinpath("log4j2.properties")
    if log_config.is_file():
        builder = builder.config(
            "spark.driver.extraJavaOptions", f"-Dlog4j2.configurationFile={log_config}"
        )
    if quiet:
        with _stderr_to_log():
            spark = builder.getOrCreate()
    else:
        spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def spark_log() -> str | None:
    """The log file a quiet session's JVM writes to (None when it writes to stderr); kept
    after the process ends only when :func:`keep_log` was called."""
    return _LOG[0] if _LOG else None


@contextmanager
def _stderr_to_log() -> Iterator[None]:
    """File descriptor 2 points at a fresh log file while the JVM starts (the JVM and the Python
    workers it forks inherit it); Python's stderr is restored afterwards."""
    handle, path = tempfile.mkstemp(prefix="tremorc-spark-", suffix=".log")
    _LOG[:] = [path]
    atexit.register(_remove_log, path)
    sys.stderr.flush()
    saved = os.dup(2)
    os.dup2(handle, 2)
    try:
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(handle)


def keep_log() -> None:
    """Keep the JVM log after exit (a failed run names it in its error)."""
    atexit.unregister(_remove_log)


def _remove_log(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def under_spark_submit() -> bool:
    """spark-submit starts the Python driver with the launcher's gateway already set."""
    return "PYSPARK_GATEWAY_PORT" in os.environ
