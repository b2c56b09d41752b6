"""Driver-side SQL of the JDBC sinks' micro-batches: a ``java.sql.Connection`` in Spark's own JVM
(through py4j, with the driver Spark registered), used for the staging table and the one
transaction that moves a micro-batch into its table and records it in ``_tremorc_batch``.

Invariant: every identifier in the SQL here was checked against ``jdbc_types.TABLE`` /
``IDENT`` by the compiler; the marker values go through bound parameters. Needs a classic
SparkSession (Spark Connect has no driver JVM here).
"""

from __future__ import annotations

from typing import Any

from runtime_support.io.connectors.jdbc_types import MARKS, Target
from runtime_support.spark.session import is_connect


class Connection:
    """``with Connection(spark, target) as conn``: a JDBC connection, closed at the end."""

    def __init__(self, spark: Any, target: Target) -> None:
        self.spark, self.target = spark, target
        self.conn: Any = None

    def __enter__(self) -> Connection:
        if is_connect(self.spark):
            raise ValueError(
                "a streaming JDBC sink commits each micro-batch in a transaction on the driver's "
                "JVM, which a Spark Connect client does not have: run the stream without --remote"
            )
        jvm = self.spark._jvm  # noqa: SLF001  # classic-only: the driver's JVM
        jvm.org.apache.spark.sql.execution.datasources.jdbc.DriverRegistry.register(
            self.target.driver
        )
        props = jvm.java.util.Properties()
        for key, value in self.target.props.items():
            props.setProperty(key, value)
        self.conn = jvm.java.sql.DriverManager.getConnection(self.target.url, props)
        return self

    def __exit__(self, *exc: object) -> None:
        self.conn.close()

    def execute(self, sql: str, params: tuple[Any, ...] = ()) -> None:
        statement = self.conn.prepareStatement(sql)
        try:
            for index, value in enumerate(params, 1):
                if isinstance(value, int):
                    statement.setLong(index, value)
                else:
                    statement.setString(index, value)
            statement.execute()
        finally:
            statement.close()

    def ensure_marks(self) -> None:
        """Create ``_tremorc_batch`` (sink, run, batch_id) unless it exists."""
        columns = "sink {0}, run {0}, batch_id {1}"
        if self.target.kind == "clickhouse":
            body = columns.format("String", "Int64") + ") ENGINE = TinyLog"
        else:
            body = columns.format("text", "bigint") + ", PRIMARY KEY (sink, run, batch_id))"
        self.execute(f"CREATE TABLE IF NOT EXISTS {MARKS} ({body}")

    def committed(self, sink: str, run: str, batch_id: int) -> bool:
        """Was this micro-batch already moved into its table?"""
        sql = f"SELECT count(*) FROM {MARKS} WHERE sink = ? AND run = ? AND batch_id = ?"
        statement = self.conn.prepareStatement(sql)
        try:
            statement.setString(1, sink)
            statement.setString(2, run)
            statement.setLong(3, batch_id)
            result = statement.executeQuery()
            result.next()
            return int(result.getLong(1)) > 0
        finally:
            statement.close()

    def create_stage(self, stage: str) -> None:
        """An empty staging table shaped like the target (an older one is dropped first)."""
        self.drop(stage)
        table = self.target.table
        if self.target.kind == "clickhouse":
            self.execute(f"CREATE TABLE {stage} AS {table} ENGINE = Memory")
        else:
            self.execute(f"CREATE TABLE {stage} (LIKE {table})")

    def commit_stage(self, stage: str, sink: str, run: str, batch_id: int) -> None:
        """Move the staged rows into the table and record the micro-batch, in one transaction
        (ClickHouse: two statements, no transaction)."""
        names = ", ".join(self.target.names)
        transactional = self.target.kind != "clickhouse"
        if transactional:
            self.conn.setAutoCommit(False)
        self.execute(f"INSERT INTO {self.target.table} ({names}) SELECT {names} FROM {stage}")
        self.execute(
            f"INSERT INTO {MARKS} (sink, run, batch_id) VALUES (?, ?, ?)", (sink, run, batch_id)
        )
        if transactional:
            self.conn.commit()

    def drop(self, stage: str) -> None:
        self.execute(f"DROP TABLE IF EXISTS {stage}")
