"""A flow's connectors before Spark starts: the local inputs they read, checked, and the Spark
properties that put the jars they need on the classpath."""

from __future__ import annotations

from typing import Any

from runtime_support.io.connectors.base import ConnectorSpec, RunContext, build_source, factory
from runtime_support.io.connectors.file import FileSource
from runtime_support.io.connectors.gcs import spark_conf as gcs_conf
from runtime_support.io.connectors.jdbc import spark_conf as jdbc_conf
from runtime_support.io.connectors.s3 import spark_conf as s3_conf
from runtime_support.io.connectors.stdio import StdioSource
from runtime_support.spark.job_io import check_paths, check_readable

__all__ = ["check_inputs", "input_paths", "jar_conf"]


def input_paths(spec: ConnectorSpec, ctx: RunContext, files: bool = True) -> tuple[str, ...]:
    """The local files ``spec`` reads as a source, checked before Spark starts (``files``:
    include the ``file`` connector's path, which Spark reads: off under spark-submit, where
    it may name the cluster's file system)."""
    source = build_source(spec)
    if isinstance(source, FileSource):
        return (source.path,) if files else ()
    if isinstance(source, StdioSource) and ctx.stdin_path and ctx.stdin_path != "-":
        return (ctx.stdin_path,)
    return ()


def check_inputs(spec: ConnectorSpec, ctx: RunContext, files: bool = True) -> None:
    """Raise :class:`~runtime_support.spark.job_io.InputPathError` (one line) for the first input
    of ``spec`` that cannot be read: a ``file`` source of JSON lines, or one whose processors run
    per file, may name a file, a folder or a glob (see :class:`FileSource`), every other input
    one file."""
    source = build_source(spec)
    for path in input_paths(spec, ctx, files):
        if isinstance(source, FileSource) and (source.lines or not source.framing.simple):
            check_paths([path])
        else:
            check_readable(path)


def jar_conf(specs: tuple[ConnectorSpec, ...]) -> dict[str, str]:
    """The Spark properties that put the jars the connectors ``specs`` need on the classpath:
    ``spark.jars.packages`` (Spark's connectors, JDBC drivers, s3a; sorted, unique) and
    ``spark.jars`` / ``spark.jars.excludes`` where a connector needs them."""
    conf = jdbc_conf({spec.kind for spec in specs})
    for key, value in {**s3_conf(specs), **gcs_conf(specs)}.items():
        joined = key in ("spark.jars.packages", "spark.jars.excludes", "spark.jars") and key in conf
        conf[key] = f"{conf[key]},{value}" if joined else value
    listed = conf.pop("spark.jars.packages", "").split(",") + _class_packages(specs)
    packages = sorted({p for p in listed if p})
    if packages:
        conf["spark.jars.packages"] = ",".join(packages)
    return conf


def _class_packages(specs: Any) -> list[str]:
    """The Maven coordinates a source or sink factory lists (functions in ``packages``)."""
    return [
        make()
        for spec in specs
        for name in (spec.source, spec.sink)
        for make in getattr(factory(name), "packages", ())
    ]
