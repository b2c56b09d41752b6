"""The ``s3_reader`` / ``s3_streamer`` connectors on Hadoop's ``s3a`` file system through
Spark's file source and sink (hadoop-aws with the AWS SDK's s3, s3-transfer-manager and sts
modules: not the SDK bundle, several hundred MB).

Source: the objects of ``bucket`` under ``prefix`` (a folder prefix ``logs/``: the objects in it;
any other prefix ``logs/2024``: the objects of that folder level whose key starts with it), read
as the ``file`` connector reads a folder or glob: the codec and preprocessors apply to each
object; streaming: new objects are new events (Spark's file stream source).

Sink: each run writes the encoded events as part files (``separate`` frames them) under
``s3a://bucket/<path>``; batch: ``path/part-*`` (replaced by the next run); a micro-batch:
``path/part-<run>-<batch>/`` written in overwrite mode, so a replayed micro-batch replaces its
own objects (exactly once). Endpoint, region, credentials and path-style access are per-bucket
Hadoop settings (``spark.hadoop.fs.s3a.bucket.<bucket>.*``) made when the session starts.
"""

from __future__ import annotations

from typing import Any

from runtime_support.io.codecs import codec_from, framing_from
from runtime_support.io.connectors.base import ConnectorSpec, RunContext
from runtime_support.io.connectors.file import FileSink, FileSource, encoded_text
from runtime_support.io.connectors.file_stream import file_events

SDK = "2.35.4"  # hadoop-aws 3.5.0's AWS SDK v2 version (hadoop-project's aws-java-sdk-v2.version)
PACKAGES = (
    "org.apache.hadoop:hadoop-aws:3.5.0",
    *(f"software.amazon.awssdk:{m}:{SDK}" for m in ("s3", "s3-transfer-manager", "sts")),
)
SIMPLE = "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider"
ENV = "software.amazon.awssdk.auth.credentials.EnvironmentVariableCredentialsProvider"
DEFAULT_CHAIN = "software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider"
NO_META = "the object name comes from the `path` config key ($s3_streamer metadata is not read)"


def bucket_conf(config: dict[str, Any]) -> dict[str, str]:
    """The per-bucket Hadoop settings of one connector's ``config`` (Tremor's endpoint keys:
    ``url``, ``aws_region``, ``auth``, ``path_style_access``; the reader's multipart keys)."""
    bucket = str(config.get("bucket", ""))
    key = f"spark.hadoop.fs.s3a.bucket.{bucket}."
    conf = {key + "path.style.access": str(config.get("path_style_access", True)).lower()}
    url = config.get("url")
    if isinstance(url, str):
        conf[key + "endpoint"] = url
        conf[key + "connection.ssl.enabled"] = str(not url.startswith("http://")).lower()
    if isinstance(config.get("aws_region"), str):
        conf[key + "endpoint.region"] = config["aws_region"]
    auth = config.get("auth")
    if isinstance(auth, dict):
        conf[key + "aws.credentials.provider"] = SIMPLE
        conf[key + "access.key"] = str(auth.get("access_key_id", ""))
        conf[key + "secret.key"] = str(auth.get("secret_access_key", ""))
        if "session_token" in auth:
            conf[key + "session.token"] = str(auth["session_token"])
            conf[key + "aws.credentials.provider"] = (
                "org.apache.hadoop.fs.s3a.TemporaryAWSCredentialsProvider"
            )
    else:  # Tremor's default: the AWS SDK's chain (environment variables first)
        conf[key + "aws.credentials.provider"] = f"{ENV},{DEFAULT_CHAIN}"
    for name, hadoop in (
        ("multipart_chunksize", "multipart.size"),
        ("multipart_threshold", "multipart.threshold"),
        ("max_connections", "connection.maximum"),
    ):
        if name in config:
            conf[key + hadoop] = str(config[name])
    return conf


def spark_conf(specs: Any) -> dict[str, str]:
    """What the S3 connectors of ``specs`` need when the session starts."""
    conf: dict[str, str] = {}
    for spec in specs:
        if spec.kind in ("s3_reader", "s3_streamer"):
            conf.update(bucket_conf(spec.config))
    if conf:
        conf["spark.jars.packages"] = ",".join(PACKAGES)
        conf["spark.jars.excludes"] = "software.amazon.awssdk:bundle"
    return conf


def _with_path(spec: ConnectorSpec, path: str, mode: str) -> ConnectorSpec:
    params = {**spec.params, "config": {"path": path, "mode": mode}}
    return ConnectorSpec(spec.alias, "file", params)


def reader_path(config: dict[str, Any]) -> str:
    """``s3a://bucket/prefix`` for a folder prefix, else ``…/prefix*``."""
    prefix = str(config.get("prefix", ""))
    base = f"s3a://{config['bucket']}/{prefix}"
    return base if prefix == "" or prefix.endswith("/") else base + "*"


class S3Reader:
    """Reads the objects with Spark's file source (see the module doc)."""

    def __init__(self, spec: ConnectorSpec) -> None:
        self.file = FileSource(_with_path(spec, reader_path(spec.config), "read"))
        self.path = self.file.path

    def read(self, spark: Any, ctx: RunContext) -> Any:
        return self.file.read(spark, ctx)

    def stream(self, spark: Any, args: Any, start_ns: int) -> Any:
        return file_events(spark, self.file, args)


class S3Streamer:
    """Writes part files under ``s3a://bucket/path`` (see the module doc)."""

    stops = False

    def __init__(self, spec: ConnectorSpec, scheme: str = "s3a") -> None:
        config = spec.config
        self.target = f"{scheme}://{config.get('bucket')}/{str(config.get('path', '')).strip('/')}"
        self.file = FileSink(_with_path(spec, self.target, "truncate"))
        self.codec = codec_from(spec.params.get("codec"))
        self.separator = framing_from(spec.params.get("postprocessors")).separator

    def write_frame(self, frame: Any, progress: Any) -> None:
        self.file.write_frame(frame, progress)

    def write_batch(self, frame: Any, batch_id: int, run: str) -> None:
        """One micro-batch into its own folder, replaced when Spark replays it."""
        ordered = frame.sortWithinPartitions("seq", "sub").select("value")
        encoded = encoded_text(ordered, self.codec)
        folder = f"{self.target}/part-{run}-{batch_id:010d}"
        encoded.write.mode("overwrite").option("lineSep", self.separator).text(folder)
