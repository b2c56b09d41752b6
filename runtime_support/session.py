"""The embedded local SparkSession used by ``python job.py`` and ``tremorc test``.

Under ``spark-submit`` the launcher's options win: a ``master`` the job asks for is ignored, a
``conf`` key the launcher (or Spark's defaults) already set keeps its value, and one read only at
start-up can not be added (each said in one stderr line); other job ``conf`` keys are set.
Outside it, ``master`` (default ``local[2]``) and ``conf`` (over the embedded defaults) configure
the embedded session.

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
    app_name: str = "tremorc-job",
    quiet: bool = False,
    master: str | None = None,
    conf: dict[str, str] | None = None,
):  # -> SparkSession (lazy import keeps start-up cheap)
    """Return the active SparkSession, creating one when there is none: embedded on ``master``
    (default ``local[2]``) with ``conf`` over the local defaults (with ``quiet``, its JVM writes
    to a log file instead of stderr), or the launcher's under spark-submit (see the module doc).

    Python workers are pinned to this interpreter so they see the same pyarrow/orjson.
    """
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        return active
    if under_spark_submit():
        return _submitted_session(master, conf or {})
    builder = SparkSession.builder.appName(app_name)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    builder = builder.master(master or "local[2]")
    for key, value in {**_LOCAL_CONF, **(conf or {})}.items():
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


def _submitted_session(master: str | None, conf: dict[str, str]):
    """The launcher's session, plus the job's ``conf`` keys it did not set that can be set at
    run time; each option not applied is said on stderr in one line."""
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.getOrCreate()
    if master is not None:
        _say(f"--master {master} ignored: spark-submit's master is used")
    for key, value in conf.items():
        if spark.conf.get(key, None) is not None:
            _say(f"--conf {key} ignored: spark-submit set it")
        elif spark.conf.isModifiable(key):
            spark.conf.set(key, value)
        else:
            _say(f"--conf {key} ignored: give it to spark-submit (it is read at start-up)")
    return spark


def _say(line: str) -> None:
    print(f"tremorc: {line}", file=sys.stderr)


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
