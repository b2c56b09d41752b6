"""The JDBC connectors on Spark's JDBC data source: ``postgres`` (a tremorc extension, source and
sink; Tremor has no such connector) and ``clickhouse`` (Tremor's sink), with the vendors' drivers.

Source (``postgres``): ``spark.read`` of ``query`` or ``table`` in one JDBC partition; each row
is one event, the record of its columns, or with ``column`` the JSON document held in that
column; ``seq`` is the row's position in the result (the query's ORDER BY order). A JDBC read
is bounded: it can not stream (see :data:`NO_STREAM`).

Sink, batch (``write_frame``): Spark's JDBC writer appends to ``table`` from the executors (no
event through the driver); each event is one row, its JSON text in the column ``column`` (a
``jsonb``/``String`` column) or its fields in ``columns`` (:mod:`.jdbc_types`). Spark commits
each partition in its own transaction. Sink, streaming (``write_batch``): the micro-batch goes to
a staging table, then one transaction on the driver copies it into ``table`` and records
``(sink, run, batch_id)`` in ``_tremorc_batch``; a replayed micro-batch whose row is there
writes nothing. PostgreSQL: exactly once. ClickHouse has no transactions: a crash between the
copy and the record replays the copy (at least once).
"""

from __future__ import annotations

import os
from typing import Any

from runtime_support.io.connectors.base import ConnectorSpec, RunContext, with_origin
from runtime_support.io.connectors.jdbc_sql import Connection
from runtime_support.io.connectors.jdbc_types import (
    Target,
    parse_columns,
    row_encoder,
)
from runtime_support.tremor.origin import encode_origin

POSTGRES_PACKAGE = "org.postgresql:postgresql:42.7.8"
#: The shaded ClickHouse driver (Spark's packages resolver takes no classifier: a local jar).
CLICKHOUSE_JAR = (
    "com/clickhouse/clickhouse-jdbc/0.3.2-patch11/clickhouse-jdbc-0.3.2-patch11-all.jar"
)
NO_STREAM = (
    "a JDBC query is a bounded read: Spark's JDBC source has no streaming reader (no change "
    "feed); run the flow in batch, or stream from files"
)


def _host_port(url: str, default_port: int) -> tuple[str, int]:
    host, _, port = url.rpartition(":") if ":" in url else (url, "", str(default_port))
    if "//" in host:
        host = host.split("//", 1)[1]
    return host or "localhost", int(port)


def postgres_target(spec: ConnectorSpec) -> Target:
    """``url`` (``host[:port]``, default port 5432), ``database`` (``postgres``), ``user``
    (``postgres``), ``password``, ``table``, ``query``, ``column``, ``columns``."""
    config = spec.config
    host, port = _host_port(str(config.get("url", "localhost")), 5432)
    database = str(config.get("database", "postgres"))
    props = {"user": str(config.get("user", "postgres")), "stringtype": "unspecified"}
    if "password" in config:
        props["password"] = str(config["password"])
    columns = parse_columns("postgres", config["columns"]) if "columns" in config else ()
    return Target(
        kind="postgres",
        url=f"jdbc:postgresql://{host}:{port}/{database}",
        driver="org.postgresql.Driver",
        host=host,
        port=port,
        database=database,
        props=props,
        table=config.get("table"),
        query=config.get("query"),
        column=config.get("column"),
        columns=columns,
    )


def clickhouse_target(spec: ConnectorSpec) -> Target:
    """Tremor's ``url`` (``host[:port]``: the HTTP interface, default 8123), ``database``
    (``default``), ``table``, ``columns``, ``compression`` (``lz4``: requests compressed)."""
    config = spec.config
    host, port = _host_port(str(config.get("url", "localhost")), 8123)
    database = str(config.get("database", "default"))
    # compress=false: Debian's server (18.16) fails the driver's compressed responses
    props = {"compress": "false"}
    if config.get("compression") == "lz4":
        props["decompress"] = "true"
    return Target(
        kind="clickhouse",
        url=f"jdbc:clickhouse://{host}:{port}/{database}",
        driver="ru.yandex.clickhouse.ClickHouseDriver",
        host=host,
        port=port,
        database=database,
        props=props,
        table=config.get("table"),
        columns=parse_columns("clickhouse", config.get("columns", ())),
    )


def spark_conf(kinds: set[str]) -> dict[str, str]:
    """The Spark properties that put the drivers of ``kinds`` on the classpath."""
    conf: dict[str, str] = {}
    if "postgres" in kinds:
        conf["spark.jars.packages"] = POSTGRES_PACKAGE
    if "clickhouse" in kinds:
        m2 = os.path.join(os.path.expanduser("~"), ".m2", "repository")
        conf["spark.jars"] = os.path.join(m2, CLICKHOUSE_JAR)
    return conf


class PostgresSource:
    """Reads ``query`` / ``table`` with Spark's JDBC source (see the module doc)."""

    no_stream = NO_STREAM

    def __init__(self, spec: ConnectorSpec) -> None:
        self.target = postgres_target(spec)

    def read(self, spark: Any, ctx: RunContext) -> Any:
        from pyspark.sql import functions as F

        target = self.target
        reader = spark.read.format("jdbc").options(**target.options())
        if target.query is not None:
            reader = reader.option("query", target.query)
        else:
            reader = reader.option("dbtable", target.table)
        rows = reader.load()  # one partition: no partitionColumn
        if target.column is not None:
            value = F.col(target.column).cast("string")
        else:
            value = F.to_json(F.struct(*[F.col(f"`{n}`") for n in rows.columns]))
        base = 0 if ctx.ingest_ns == "index" else ctx.start_ns
        seq = F.monotonically_increasing_id()
        df = rows.select(seq.alias("seq"), value.alias("value")).filter(F.col("value").isNotNull())
        df = df.withColumn("ingest_ns", F.col("seq") + F.lit(base))
        origin = encode_origin("tremor-postgres", target.host, target.port, [target.database])
        return with_origin(df, origin)


class JdbcSink:
    """Writes events as rows of ``table`` (see the module doc)."""

    stops = False

    def __init__(self, spec: ConnectorSpec) -> None:
        self.alias = spec.alias
        factory = postgres_target if spec.kind == "postgres" else clickhouse_target
        self.target = factory(spec)
        if not self.target.table:
            raise ValueError(f"Invalid config for connector `{spec.alias}`: `table` is required")

    def rows(self, frame: Any) -> Any:
        """The frame's events as rows of the target's columns."""
        from pyspark.sql import functions as F

        target = self.target
        if not target.columns:
            return frame.select(F.col("value").alias(target.names[0]))
        ddl = ", ".join(c.ddl() for c in target.columns)
        return frame.select("value").mapInArrow(row_encoder(target.columns), ddl)

    def write_frame(self, frame: Any, progress: Any) -> None:
        """Append with Spark's JDBC writer, from the executors."""
        rows = self.rows(frame)
        rows.write.format("jdbc").options(**self.target.options()).option(
            "dbtable", self.target.table
        ).mode("append").save()
        if progress.active:
            progress.add(frame.count())

    def write_batch(self, frame: Any, batch_id: int, run: str) -> None:
        """One micro-batch, idempotent on ``(run, batch_id)`` (see the module doc)."""
        target = self.target
        stage = f"{target.table}_tremorc_{run}_{batch_id}"
        with Connection(frame.sparkSession, target) as conn:
            conn.ensure_marks()
            if conn.committed(self.alias, run, batch_id):
                return
            conn.create_stage(stage)
        try:
            self.rows(frame).write.format("jdbc").options(**target.options()).option(
                "dbtable", stage
            ).mode("append").save()
            with Connection(frame.sparkSession, target) as conn:
                conn.commit_stage(stage, self.alias, run, batch_id)
        finally:
            with Connection(frame.sparkSession, target) as conn:
                conn.drop(stage)
