"""The ``gcs_streamer`` connector on Hadoop's ``gs`` file system (Google's gcs-connector, the
shaded jar: its own gRPC, protobuf and Guava never meet Spark's) through Spark's text sink, as
``s3_streamer`` writes on ``s3a``.

Each run writes the encoded events as part files (``separate`` frames them) under
``gs://bucket/<path>``; batch: ``path/part-*`` (replaced by the next run); a micro-batch:
``path/part-<run>-<batch>/`` in overwrite mode, so a replayed micro-batch replaces its own
objects (exactly once). Endpoint and credentials are Hadoop settings made when the session
starts: Tremor's ``url`` (its upload endpoint ``…/upload/storage/v1/``) gives the root
(``fs.gs.storage.root.url``); ``token`` ``{"file": path}`` is a service account key file,
``"env"`` Google's application default credentials, and ``{"json": …}`` is a compile error (the
key would be written into the job). Invariant: the jar is put on the classpath with
``spark.jars`` (Spark's ``--packages`` can not name the ``shaded`` classifier).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from runtime_support.io.connectors.base import ConnectorSpec
from runtime_support.io.connectors.s3 import S3Streamer

VERSION = "3.1.3"
JAR = f"com/google/cloud/bigdataoss/gcs-connector/{VERSION}/gcs-connector-{VERSION}-shaded.jar"
UPLOAD = "upload/storage/v1/"
#: Hadoop 3.5's core-default.xml gives these ``fs.gs.*`` keys (meant for its own hadoop-gcp)
#: values with units (``64m``) that gcs-connector 3.1 reads as plain numbers: the same values.
PLAIN_SIZES = {
    "block.size": 64 * 2**20,
    "rewrite.max.chunk.size": 512 * 2**20,
    "outputstream.buffer.size": 8 * 2**20,
    "inputstream.inplace.seek.limit": 8 * 2**20,
    "inputstream.min.range.request.size": 2 * 2**20,
}
DEFAULT_URL = "https://storage.googleapis.com/" + UPLOAD


def jar_path() -> str:
    """The shaded gcs-connector jar in the local Maven repository (``.ci/install.d/gcs.sh``)."""
    return str(Path.home() / ".m2" / "repository" / JAR)


def root_url(url: str) -> str:
    """The storage root of Tremor's upload endpoint ``url`` (``…/upload/storage/v1/`` off)."""
    base = url if url.endswith("/") else url + "/"
    return base[: -len(UPLOAD)] if base.endswith(UPLOAD) else base


def gs_conf(config: dict[str, Any]) -> dict[str, str]:
    """The Hadoop settings of one ``gcs_streamer``'s ``config`` (endpoint, credentials)."""
    prefix = "spark.hadoop.fs.gs."
    impl = "com.google.cloud.hadoop.fs.gcs.GoogleHadoop"
    conf = {
        prefix + "impl": impl + "FileSystem",
        "spark.hadoop.fs.AbstractFileSystem.gs.impl": impl + "FS",
        prefix + "storage.root.url": root_url(str(config.get("url", DEFAULT_URL))),
        prefix + "http.connect-timeout": str(int(config.get("connect_timeout", 10**10)) // 10**6),
        prefix + "http.max.retry": str(config.get("max_retries", 3)),
        prefix + "outputstream.upload.chunk.size": str(config.get("buffer_size", 8 * 2**20)),
    }
    conf.update({prefix + key: str(value) for key, value in PLAIN_SIZES.items()})
    # Hadoop 3.5 binds `gs` to its manifest committer, which Spark's file writer does not set
    # up (no job id): Hadoop's default factory, the classic FileOutputCommitter
    conf["spark.hadoop.mapreduce.outputcommitter.factory.scheme.gs"] = (
        "org.apache.hadoop.mapreduce.lib.output.PathOutputCommitterFactory"
    )
    token = config.get("token")
    if isinstance(token, dict) and "file" in token:
        conf[prefix + "auth.type"] = "SERVICE_ACCOUNT_JSON_KEYFILE"
        conf[prefix + "auth.service.account.json.keyfile"] = str(token["file"])
    elif token == "env":
        conf[prefix + "auth.type"] = "APPLICATION_DEFAULT"
    else:  # no token: an emulator or a public bucket
        conf[prefix + "auth.type"] = "UNAUTHENTICATED"
    return conf


def spark_conf(specs: Any) -> dict[str, str]:
    """What the ``gcs_streamer`` connectors of ``specs`` need when the session starts."""
    conf: dict[str, str] = {}
    for spec in specs:
        if spec.kind == "gcs_streamer":
            conf.update(gs_conf(spec.config))
    if conf:
        conf["spark.jars"] = jar_path()
    return conf


class GcsStreamer(S3Streamer):
    """Writes part files under ``gs://bucket/path`` (see the module doc)."""

    def __init__(self, spec: ConnectorSpec) -> None:
        super().__init__(spec, scheme="gs")
