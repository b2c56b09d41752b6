"""``tremorc build`` timings of the benchmark suite: in process and as the CLI, and a large
program generated from the workloads' own script definitions."""

from __future__ import annotations

import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from suite_data import BY_NAME, ROOT

# The workloads whose `define script` blocks the large program repeats (renamed).
SCRIPT_SOURCES = ("real-workflow-throughput-json", "let", "merge")


def build_times(path: Path, runs: int) -> dict[str, float]:
    """Median seconds of ``runs`` builds of ``path``: ``compile_path`` in this process (imports
    warm after the first) and ``python -m compiler build`` in a fresh interpreter (the
    compiler's bytecode written first, see :func:`_write_bytecode`)."""
    from compiler.pipeline import compile_path

    _write_bytecode()
    inside, cli = [], []
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(runs):
            started = time.perf_counter()
            compile_path(path)
            inside.append(time.perf_counter() - started)
            started = time.perf_counter()
            command = [sys.executable, "-m", "compiler", "build", str(path), "-o", f"{tmp}/job.py"]
            subprocess.run(command, check=True, env=env, cwd=ROOT, capture_output=True)
            cli.append(time.perf_counter() - started)
    return {"in_process": statistics.median(inside), "cli": statistics.median(cli)}


def _write_bytecode() -> None:
    """Compile the compiler's sources to ``.pyc`` once, as an installed package has them: with
    ``PYTHONDONTWRITEBYTECODE=1`` (set on some machines) and a fresh checkout, every CLI run
    would otherwise compile them again (~0.2 s CPU), which no user's install pays."""
    command = [sys.executable, "-m", "compileall", "-q", "compiler", "runtime_support"]
    subprocess.run(command, check=True, cwd=ROOT, capture_output=True)


def script_blocks() -> list[str]:
    """The ``define script NAME ... end;`` blocks of :data:`SCRIPT_SOURCES`, with ``NAME`` as a
    ``{name}`` placeholder."""
    blocks = []
    for name in SCRIPT_SOURCES:
        text = BY_NAME[name].trickle.read_text()
        match = re.search(r"define script (\w+)\n(.*?\nend;)", text, re.S)
        body = match.group(2).replace("{", "{{").replace("}", "}}")
        blocks.append("define script {name}\n" + body)
    return blocks


def big_program(folder: Path, lines: int) -> tuple[Path, int]:
    """A trickle of at least ``lines`` lines: the workloads' scripts repeated under fresh names,
    chained ``in`` → s0 → s1 → … → ``out``; returns its path and its line count."""
    blocks, parts, count, i = script_blocks(), [], 0, 0
    while count < lines:
        block = blocks[i % len(blocks)].format(name=f"s{i}")
        previous = "in" if i == 0 else f"s{i - 1}"
        parts.append(f"{block}\ncreate script s{i};\nselect event from {previous} into s{i};\n")
        count += block.count("\n") + 3
        i += 1
    parts.append(f"select event from s{i - 1} into out;\n")
    text = "".join(parts)
    path = folder / "big.trickle"
    path.write_text(text)
    return path, text.count("\n")
