"""Start-up options for every Spark driver JVM the tests start (test infrastructure only).

A test run starts many short-lived Spark drivers (the session fixture, each
``python job.py`` and ``spark-submit`` subprocess), each working a few seconds: their time goes
to loading the same ~15,000 classes and to the JIT. Through ``SPARK_SUBMIT_OPTS`` (Spark's
launcher puts it on each driver's command line) every driver:

- maps one class-data archive (JDK CDS, ``-XX:SharedArchiveFile``), recorded by the first run on
  a machine over a small job (``-XX:ArchiveClassesAtExit``, ~40 s once); a JVM whose class path
  differs from the archive's loads its classes as before;
- compiles with C1 only (``-XX:TieredStopAtLevel=1``): C2's compiler threads cost short jobs on
  two cores more than their code gains (but the test process's own session, which lives for
  the whole run: C1 only made its tests ~15 % slower, see :func:`_own_session_with_c2`);
- logs only JVM errors, to stderr, so a note about the archive never reaches a job's stdout.

Measured here (single runs): a trivial job 19.3 → 10.9 s of wall time;
tests/e2e/test_job_io.py 91 → 54 s, tests/spark/test_stream_crash.py 156 → 115 s,
tests/spark/test_memory.py 97 → 79 s. What the jobs compute is unchanged.
``TREMORC_TEST_JVM=default`` turns all of it off; the archive lives in ``~/.cache/tremorc-tests``,
named by a digest of the JDK, Python, pyspark and its jars (an upgrade records a new one)."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
from pathlib import Path

QUIET_JVM_LOG = "-Xlog:disable -Xlog:all=error:stderr"
C1_ONLY = "-XX:TieredStopAtLevel=1"
_TRAINING = """
import sys
from pyspark.sql import functions as F
from runtime_support.spark.session import get_session

spark = get_session("tremorc-cds-training")
lines = spark.read.text(sys.argv[1]).withColumn("seq", F.monotonically_increasing_id())

def mapper(batches):
    for batch in batches:
        yield batch

mapped = lines.mapInArrow(mapper, lines.schema)
grouped = mapped.groupBy(F.length("value")).count().orderBy("count")
grouped.write.mode("overwrite").json(sys.argv[2])
spark.read.json(sys.argv[2]).collect()
mapped.orderBy("seq").select("value").write.mode("overwrite").text(sys.argv[2] + "-text")
"""


def _digest() -> str:
    import pyspark

    jars = Path(pyspark.__file__).parent / "jars"
    java = subprocess.run(["java", "-version"], capture_output=True, text=True, check=False)
    parts = [java.stderr, pyspark.__version__, sys.version]
    parts += [f"{p.name}:{p.stat().st_size}" for p in sorted(jars.glob("*.jar"))]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


def _record(archive: Path, root: Path) -> bool:
    """Run the training job with the archive recorded at its JVM's exit; True if it was."""
    archive.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="tremorc-cds-") as work:
        lines = Path(work, "in.json")
        lines.write_text("".join(f'{{"n":{i}}}\n' for i in range(100)), encoding="utf-8")
        partial = archive.with_suffix(f".{os.getpid()}.tmp")
        env = {
            **os.environ,
            "PYTHONPATH": str(root),
            "SPARK_SUBMIT_OPTS": f"-XX:ArchiveClassesAtExit={partial} {QUIET_JVM_LOG}",
        }
        done = subprocess.run(
            [sys.executable, "-c", _TRAINING, str(lines), str(Path(work, "out"))],
            env=env,
            capture_output=True,
            timeout=600,
            check=False,
        )
        if done.returncode != 0 or not partial.is_file():
            partial.unlink(missing_ok=True)
            return False
        partial.replace(archive)
        return True


def fast_test_jvms(root: Path) -> None:
    """Add the options to ``SPARK_SUBMIT_OPTS`` (recording the archive first when there is
    none; without one, C1 only)."""
    if os.environ.get("TREMORC_TEST_JVM") == "default":
        return
    options = [os.environ.get("SPARK_SUBMIT_OPTS", ""), C1_ONLY]
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    try:
        archive = cache / "tremorc-tests" / f"spark-{_digest()}.jsa"
        recorded = archive.is_file() or _record(archive, root)
    except (OSError, subprocess.SubprocessError):  # no java, no cache folder, a hung training
        recorded = False
    if recorded:
        options += [f"-XX:SharedArchiveFile={archive}", QUIET_JVM_LOG]
    os.environ["SPARK_SUBMIT_OPTS"] = " ".join(option for option in options if option)
    _own_session_with_c2()


def _own_session_with_c2() -> None:
    """The JVM this process launches (pyspark's ``launch_gateway``, whoever starts the session
    first) starts without ``C1_ONLY``; its children keep it. Where pyspark launches it
    elsewhere (another version), that JVM gets C1 only too: slower, not wrong."""
    try:
        import pyspark.core.context as context

        launch = context.launch_gateway
    except (ImportError, AttributeError):
        return

    def launch_with_c2(*args, **kwargs):
        given = os.environ.get("SPARK_SUBMIT_OPTS", "")
        os.environ["SPARK_SUBMIT_OPTS"] = given.replace(C1_ONLY, "").strip()
        try:
            return launch(*args, **kwargs)
        finally:
            os.environ["SPARK_SUBMIT_OPTS"] = given

    context.launch_gateway = launch_with_c2
