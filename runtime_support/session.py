"""The embedded local SparkSession used by ``python job.py`` and ``tremorc test``.

Under ``spark-submit`` the session the launcher configured is reused unchanged: ``getOrCreate``
only fills in a master when none was given.
"""

from __future__ import annotations

import os
import sys
from importlib.resources import files

__all__ = [
    "get_session",
]

_LOCAL_CONF = {
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.shuffle.partitions": "2",
    "spark.sql.execution.arrow.pyspark.enabled": "true",
    "spark.driver.memory": "2g",
}


def get_session(
    app_name: str = "tremorc-job",
):  # -> SparkSession (lazy import keeps start-up cheap)
    """Return the active SparkSession, creating an embedded ``local[*]`` one when there is none.

    Python workers are pinned to this interpreter so they see the same pyarrow/orjson.
    """
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        return active
    builder = SparkSession.builder.appName(app_name)
    if not _under_spark_submit():
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
        builder = builder.master("local[2]")
        for key, value in _LOCAL_CONF.items():
            builder = builder.config(key, value)
        log_config = files("runtime_support.data").joinpath("log4j2.properties")
        if log_config.is_file():
            builder = builder.config(
                "spark.driver.extraJavaOptions", f"-Dlog4j2.configurationFile={log_config}"
            )
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def _under_spark_submit() -> bool:
    """spark-submit starts the Python driver with the launcher's gateway already set."""
    return "PYSPARK_GATEWAY_PORT" in os.environ
