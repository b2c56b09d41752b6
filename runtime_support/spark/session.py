"""The SparkSession of ``python job.py`` and ``tremorc test``: embedded local, the launcher's
under ``spark-submit``, or a Spark Connect server's (``remote``).

Under ``spark-submit`` the launcher's options win: a ``master`` the job asks for is ignored, a
``conf`` key the launcher (or Spark's defaults) already set keeps its value, and one read only at
start-up can not be added (each said in one stderr line); other job ``conf`` keys are set.
Outside it, ``master`` (default ``local[2]``) and ``conf`` (over the embedded defaults) configure
the embedded session.

Spark Connect (``remote`` = ``sc://HOST:PORT``, or the ``SPARK_REMOTE`` environment variable when
neither ``remote`` nor ``master`` is given): the session is a Connect client; the package's zip
is added with ``addArtifacts`` so the server's Python workers import this ``runtime_support``;
each ``conf`` key is set on the session, or said ignored when the server reads it only at
start-up. Under spark-submit ``remote`` is ignored (said), as ``master`` is. Nothing here or in
a job uses ``SparkContext`` or the RDD API except :func:`set_log_level`'s guarded classic path.

Quiet mode (a job run without ``--verbose``): the JVM is started with its stderr going to a log
file (:data:`SPARK_LOG`, removed when the job ends without error), so its banner, warnings and
log lines never reach the user's terminal; Python's own stderr is untouched.

An embedded session loads the ``tremor_json`` expression when this machine can build its jar
(:mod:`runtime_support.spark.jvm_json`); when it cannot, a session that is not quiet says why.
"""

from __future__ import annotations

import atexit
import os
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from importlib.resources import files
from typing import Any

__all__ = [
    "get_session",
    "is_connect",
    "keep_log",
    "set_log_level",
    "spark_log",
    "under_spark_submit",
]

_LOCAL_CONF = {
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.shuffle.partitions": "2",
    "spark.sql.execution.arrow.pyspark.enabled": "true",
    "spark.driver.memory": "2g",
    # A persisted stage is cached in columnar batches built in memory, this many rows each:
    # Spark's 10,000 rows (or 1,000) of large events (8 KB+) outgrow a 512m driver's heap.
    "spark.sql.inMemoryColumnarStorage.batchSize": "100",
    # Arrow batches to and from Python workers: 10,000 rows of 8 KB events are 80 MB a batch,
    # several of them live at once per task; capped at 16 MiB each (small events are unaffected).
    "spark.sql.execution.arrow.maxBytesPerBatch": str(16 << 20),
    "spark.sql.execution.arrow.maxBytesPerOutputBatch": str(16 << 20),
    # The JVM talks to its Python workers over Unix domain sockets, not TCP on 127.0.0.1: each
    # Python task then costs less to start and finish.
    "spark.python.unix.domain.socket.enabled": "true",
    # PySpark records the Python call site of every DataFrame and Column call in the JVM (five
    # py4j round trips each) for the query context of analysis errors; a generated job's plan
    # is built from the runtime's code, not the user's, so the context names no user line. Off:
    # a third of the round trips to build a typed plan.
    "spark.python.sql.dataFrameDebugging.enabled": "false",
}
_LOG: list[str] = []  # the quiet JVM's log file, once started


def get_session(
    app_name: str = "tremorc-job",
    quiet: bool = False,
    master: str | None = None,
    conf: dict[str, str] | None = None,
    remote: str | None = None,
):  # -> SparkSession (lazy import keeps start-up cheap)
    """Return the active SparkSession, creating one when there is none: a Spark Connect client
    of ``remote``, embedded on ``master`` (default ``local[2]``) with ``conf`` over the local
    defaults (with ``quiet``, its JVM writes to a log file instead of stderr), or the launcher's
    under spark-submit (see the module doc).

    Python workers are pinned to this interpreter so they see the same pyarrow/orjson.
    """
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        return active
    if under_spark_submit():
        return _submitted_session(master, conf or {}, remote)
    if remote is None and master is None:
        remote = os.environ.get("SPARK_REMOTE") or None
    os.environ.pop("SPARK_REMOTE", None)  # pyspark refuses a master while it is set
    if remote is not None:
        return _remote_session(app_name, remote, conf or {})
    from runtime_support.spark.jvm_json import session_conf, why_not_built

    builder = SparkSession.builder.appName(app_name)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    builder = builder.master(master or "local[2]")
    for key, value in session_conf({**_LOCAL_CONF, **(conf or {})}).items():
        builder = builder.config(key, value)
    if not quiet and why_not_built():
        _say(f"typed rows are written with to_json (slower): {why_not_built()}")
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
    set_log_level(spark, "ERROR")
    return spark


def _remote_session(app_name: str, url: str, conf: dict[str, str]):
    """A Spark Connect client of ``url`` with the runtime shipped and ``conf`` set where the
    server lets a session set it (otherwise said, one line per key)."""
    from pyspark.sql import SparkSession

    from runtime_support.spark.artifacts import ship_runtime

    spark = SparkSession.builder.remote(url).appName(app_name).getOrCreate()
    ship_runtime(spark)
    for key, value in conf.items():
        if spark.conf.isModifiable(key):
            spark.conf.set(key, value)
        else:
            _say(f"--conf {key} ignored: the Spark Connect server reads it at start-up")
    return spark


def _submitted_session(master: str | None, conf: dict[str, str], remote: str | None = None):
    """The launcher's session, plus the job's ``conf`` keys it did not set that can be set at
    run time; each option not applied is said on stderr in one line."""
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.getOrCreate()
    if master is not None:
        _say(f"--master {master} ignored: spark-submit's master is used")
    if remote is not None:
        _say(f"--remote {remote} ignored: spark-submit's session is used")
    for key, value in conf.items():
        if spark.conf.get(key, None) is not None:
            _say(f"--conf {key} ignored: spark-submit set it")
        elif spark.conf.isModifiable(key):
            spark.conf.set(key, value)
        else:
            _say(f"--conf {key} ignored: give it to spark-submit (it is read at start-up)")
    return spark


def is_connect(spark: Any) -> bool:
    """The session is a Spark Connect client (it has no SparkContext)."""
    return type(spark).__module__.startswith("pyspark.sql.connect")


def set_log_level(spark: Any, level: str) -> None:
    """The driver's log level, classic sessions only: under Spark Connect the server's log
    level is the server's business, and the client has no SparkContext to set it on."""
    if is_connect(spark):
        return
    spark.sparkContext.setLogLevel(level)  # classic-only


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
