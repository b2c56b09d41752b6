"""JSON decode + Tremor's checks, ns per line, before and after a change of the runtime's JSON
reader, on each event shape of ``benchmarks/shapes.py``, in one Python process (no Spark; never a
unit test).

Usage::

    python benchmarks/json_decode.py [--events 20000] [--repeats 7] [--before main]
        [--path runtime_support/jsonio.py] [--shape NAME ...]

``before`` is the reader as committed at ``--before`` (a git revision), ``after`` the one in this
working tree (both loaded from ``--path``). Times are this process's CPU time (on a shared
machine wall time mostly measures the others); columns, each the best of ``--repeats`` rounds
(in each round every version is timed in turn, so both see the machine's state of that moment):

- ``bytes``: the mean line length;
- ``loads``: ``orjson.loads`` alone, the library's speed (no check);
- ``single``: ``decode_json(line)`` per line (what ``json::decode``, codecs and connectors call);
- ``batch``: ``row_decoders`` over Arrow binary columns of 10,000 lines (Spark's Arrow batch
  size), then each row's decoder: the source stage's path.

Before timing, both versions' values are checked to be equal on every line of the shape.
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

import orjson

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(ROOT), str(HERE)]

import shapes  # noqa: E402

BATCH_ROWS = 10_000


def load(path: Path, name: str) -> ModuleType:
    """The module of one Python file (the JSON reader imports nothing of the package)."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def committed(revision: str, path: str, folder: Path) -> ModuleType:
    """The reader as committed at ``revision``."""
    text = subprocess.run(
        ["git", "show", f"{revision}:{path}"], cwd=ROOT, capture_output=True, check=True
    ).stdout
    file = folder / "jsonio_before.py"
    file.write_bytes(text)
    return load(file, "jsonio_before")


def batches(lines: list[bytes]) -> list:
    """The lines as Arrow binary columns of :data:`BATCH_ROWS` rows."""
    import pyarrow as pa

    starts = range(0, len(lines), BATCH_ROWS)
    return [pa.array(lines[i : i + BATCH_ROWS], pa.binary()) for i in starts]


def timers(module: ModuleType | None, lines: list[bytes], columns: list) -> dict:
    """Functions timing one pass over the lines: ``single`` and ``batch`` of ``module``, or
    ``loads`` when ``module`` is None."""
    if module is None:

        def loads() -> None:
            parse = orjson.loads
            for line in lines:
                parse(line)

        return {"loads": loads}
    decode_json, row_decoders = module.decode_json, module.row_decoders

    def single() -> None:
        for line in lines:
            decode_json(line)

    def batch() -> None:
        at = 0
        for column in columns:
            part = lines[at : at + len(column)]
            at += len(column)
            for decode, line in zip(row_decoders(column), part, strict=True):
                decode(line)

    return {"single": single, "batch": batch}


def measure(shape: str, events: int, repeats: int, versions: dict[str, ModuleType]) -> dict:
    """ns per line of each (version, path) on ``events`` lines of ``shape`` (best round)."""
    lines = [line.encode() for line in shapes.lines(shape, events)]
    columns = batches(lines)
    for name, module in versions.items():
        for line in lines[:2000]:
            if module.decode_json(line) != orjson.loads(line):
                raise AssertionError(f"{name} reads {shape} differently: {line[:120]!r}")
    runs = {("", "loads"): timers(None, lines, columns)["loads"]}
    for name, module in versions.items():
        for path, fn in timers(module, lines, columns).items():
            runs[(name, path)] = fn
    best = {key: float("inf") for key in runs}
    for _ in range(repeats):
        for key, fn in runs.items():
            started = time.process_time()
            fn()
            best[key] = min(best[key], (time.process_time() - started) / len(lines) * 1e9)
    best[("", "bytes")] = sum(map(len, lines)) / len(lines)
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--before", default="main", help="the git revision of 'before'")
    parser.add_argument("--path", default="runtime_support/jsonio.py")
    parser.add_argument("--shape", nargs="*", choices=list(shapes.SHAPES))
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        versions = {
            "before": committed(args.before, args.path, Path(folder)),
            "after": load(ROOT / args.path, "jsonio_after"),
        }
        print(
            f"CPU ns per line, best of {args.repeats} rounds of {args.events:,} lines; before = "
            f"{args.before}, after = the working tree ({args.path})"
        )
        head = f"{'shape':20s} {'bytes':>6s} {'loads':>6s}  {'single before':>13s} "
        head += f"{'after':>6s} {'x':>5s}  {'batch before':>12s} {'after':>6s} {'x':>5s}"
        print(head)
        for shape in args.shape or list(shapes.SHAPES):
            t = measure(shape, args.events, args.repeats, versions)
            cells = [f"{shape:20s} {t['', 'bytes']:6.0f} {t['', 'loads']:6.0f} "]
            for path, width in (("single", 13), ("batch", 12)):
                before, after = t["before", path], t["after", path]
                cells.append(f"{before:{width}.0f} {after:6.0f} {before / after:5.2f}")
            print("  ".join(cells), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
