"""``tremor_json``: Tremor's JSON text of a struct, written by a JVM expression (``jvm/tremorc``).

The typed path writes its output rows as JSON text. Spark's ``to_json`` writes through Jackson
into a char buffer, makes a Java ``String`` of it and encodes that to UTF-8 again, and its
escapes of control characters need one more pass to become Tremor's (``native_typed``). The
``tremor_json`` expression writes the same text in one pass from the row's UTF-8 bytes, with
Tremor's escapes (``jvm/tremorc/JsonWriter.java`` states its invariant).

The jar is compiled here, once per machine, with the JDK's ``javac`` against the jars of the
Spark that runs the job (pyspark's own, or ``$SPARK_HOME/jars``), into a cache named by a
digest of the sources and of that Spark. An embedded session loads it (``spark.jars`` and
``spark.sql.extensions``, :func:`session_conf`). Under ``spark-submit`` or on a Spark Connect
server, give both options to the launcher or the server (``tremorc jar`` prints them).

Invariant: a job uses ``tremor_json`` only when its session has the function
(:func:`has_tremor_json`); otherwise it writes ``to_json`` and rewrites the escapes, the same
text, slower. No JDK, no jar: nothing changes but the speed. ``TREMORC_JVM_JSON=off`` turns
it off for a run (an embedded session then loads no jar either).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
import weakref
from importlib.resources import files
from pathlib import Path
from typing import Any

__all__ = [
    "EXTENSION",
    "FUNCTION",
    "build_jar",
    "has_tremor_json",
    "jar_path",
    "jdk_tool",
    "session_conf",
    "why_not_built",
]

FUNCTION = "tremor_json"
EXTENSION = "tremorc.TremorExtensions"
JAR_NAME = "tremorc-jvm.jar"
_SOURCES = ("JsonWriter.java", "TremorJson.java", "TremorExtensions.java")
_BUILT: dict[str, Path | None] = {}  # the Spark jars directory → the jar (None: no build)
_WHY_NOT: dict[str, str] = {}  # the Spark jars directory → why its jar could not be built
_SESSIONS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def spark_jars_dir() -> Path:
    """The jars of the Spark that runs the job: ``$SPARK_HOME/jars`` when it has Spark's
    catalyst jar, else pyspark's own."""
    home = os.environ.get("SPARK_HOME")
    if home and any(Path(home, "jars").glob("spark-catalyst_*.jar")):
        return Path(home, "jars")
    import pyspark

    return Path(pyspark.__file__).parent / "jars"


def _sources() -> list[Any]:
    folder = files("runtime_support").joinpath("jvm", "tremorc")
    return [folder.joinpath(name) for name in _SOURCES]


def _cache_dir() -> Path:
    root = os.environ.get("XDG_CACHE_HOME") or os.path.join(Path.home(), ".cache")
    return Path(root, "tremorc", "jvm")


def _digest(jars: Path) -> str:
    """Names the jar by what it is compiled from: the sources and the Spark it is built for."""
    digest = hashlib.sha256()
    for source in _sources():
        digest.update(source.read_bytes())
    for jar in sorted(jars.glob("spark-catalyst_*.jar")) + sorted(jars.glob("scala-library*")):
        digest.update(jar.name.encode())
    return digest.hexdigest()[:16]


def jar_path() -> Path | None:
    """The compiled jar for this Spark (built on the first call on this machine), or None when
    it cannot be built here (no ``javac``, or the compiler refused: said by :func:`build_jar`)."""
    jars = spark_jars_dir()
    key = str(jars)
    if key not in _BUILT:
        try:
            _BUILT[key] = build_jar(jars)
        except (OSError, RuntimeError) as err:
            _BUILT[key], _WHY_NOT[key] = None, str(err)
    return _BUILT[key]


def why_not_built() -> str | None:
    """Why :func:`jar_path` found no jar for this Spark (None: it did, or was not asked)."""
    return _WHY_NOT.get(str(spark_jars_dir()))


def build_jar(jars: Path) -> Path:
    """Compile the sources against ``jars`` into the cache (once: an existing jar is reused).
    The jar appears whole or not at all (built aside, then renamed), so concurrent builds are
    safe. Raises RuntimeError (with the compiler's message) when it cannot be built."""
    target = _cache_dir() / _digest(jars) / JAR_NAME
    if target.is_file():
        return target
    javac, jar_tool = jdk_tool("javac"), jdk_tool("jar")
    if javac is None or jar_tool is None:
        raise RuntimeError("no JDK here (javac and jar): tremor_json is not built")
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as work:
        classes, sources = Path(work, "classes"), []
        for source in _sources():
            sources.append(Path(work, source.name))
            sources[-1].write_bytes(source.read_bytes())
        compile_cmd = [javac, "-nowarn", "--release", "17", "-cp", f"{jars}/*", "-d", classes]
        _run([*compile_cmd, *sources])
        built = Path(work, JAR_NAME)
        _run([jar_tool, "cf", built, "-C", classes, "tremorc"])
        os.replace(built, target)
    return target


def jdk_tool(name: str) -> str | None:
    """The JDK's tool ``name`` (``$JAVA_HOME/bin`` first, then ``PATH``), None when absent."""
    home = os.environ.get("JAVA_HOME")
    if home and Path(home, "bin", name).is_file():
        return str(Path(home, "bin", name))
    return shutil.which(name)


def _run(command: list[Any]) -> None:
    done = subprocess.run([str(part) for part in command], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{Path(command[0]).name} failed: {done.stderr.strip()[-2000:]}")


def session_conf(conf: dict[str, str]) -> dict[str, str]:
    """``conf`` plus the jar (``spark.jars``) and its extension (``spark.sql.extensions``),
    each appended to what ``conf`` gives; ``conf`` unchanged when no jar can be built."""
    jar = None if _turned_off() else jar_path()
    if jar is None:
        return conf
    result = dict(conf)
    for key, value in (("spark.jars", str(jar)), ("spark.sql.extensions", EXTENSION)):
        given = [item for item in result.get(key, "").split(",") if item]
        result[key] = ",".join(given + [value] if value not in given else given)
    return result


def _turned_off() -> bool:
    """``TREMORC_JVM_JSON=off``: this run writes with ``to_json`` (read at each call)."""
    return os.environ.get("TREMORC_JVM_JSON", "").lower() == "off"


def has_tremor_json(spark: Any) -> bool:
    """The session can call ``tremor_json`` (asked once per session), and the environment does
    not turn it off (``TREMORC_JVM_JSON=off``: the job writes with ``to_json``)."""
    if _turned_off():
        return False
    known = _SESSIONS.get(spark)
    if known is None:
        try:
            known = bool(spark.catalog.functionExists(FUNCTION))
        except Exception:  # noqa: BLE001 - any failure to ask means: not there
            known = False
        _SESSIONS[spark] = known
    return known
