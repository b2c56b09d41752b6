"""``tremorc build`` start-up cost per workload: best-of-N CPU and wall of the CLI in a fresh
interpreter, and the in-process split (import of ``compiler.pipeline``, first ``compile_path``
with its lazy imports, a warm second ``compile_path``), for one or more checkouts interleaved.

    python3 benchmarks/build_startup.py [--runs 5] [--only a,b] [ROOT ...]

Invariant: every checkout runs the same workloads (this checkout's ``suite_data``) in turn, so
figures of different ROOTs are comparable as ratios. A checkout without up-to-date ``.pyc`` files
(``PYTHONDONTWRITEBYTECODE=1`` and a fresh worktree) pays ~0.2 s CPU compiling the compiler's
sources on every run: write them once (``python3 -m compileall -q compiler runtime_support``)
before timing, as an installed package has them.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from suite_data import ROOT, WORKLOADS

IN_PROCESS = (
    "import sys, time\n"
    "t0 = time.process_time()\n"
    "from compiler.pipeline import compile_path\n"
    "from pathlib import Path\n"
    "p = Path(sys.argv[1])\n"
    "t1 = time.process_time()\n"
    "compile_path(p)\n"
    "t2 = time.process_time()\n"
    "compile_path(p)\n"
    "print(t1 - t0, t2 - t1, time.process_time() - t2)\n"
)


def cli_run(root: Path, program: Path, out: str) -> tuple[float, float]:
    """CPU (user + system of the child) and wall seconds of one ``python -m compiler build``."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    command = [sys.executable, "-m", "compiler", "build", str(program), "-o", out]
    subprocess.run(command, check=True, env=env, cwd=root, capture_output=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return cpu, wall


def in_process(root: Path, program: Path) -> list[float]:
    """CPU seconds of: importing the pipeline, the first build, a warm second build."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    command = [sys.executable, "-c", IN_PROCESS, str(program)]
    done = subprocess.run(command, check=True, env=env, cwd=root, capture_output=True, text=True)
    return [float(x) for x in done.stdout.split()]


def measure(roots: list[Path], program: Path, runs: int, out: str) -> list[list[float]]:
    """Per root: best-of-``runs`` [cli cpu, cli wall, import, first, warm], roots interleaved."""
    samples: dict[Path, list[list[float]]] = {root: [] for root in roots}
    for _ in range(runs):
        for root in roots:
            samples[root].append([*cli_run(root, program, out), *in_process(root, program)])
    return [[min(column) for column in zip(*samples[root], strict=True)] for root in roots]


def main() -> None:
    """Print one line per workload: the five figures of each ROOT."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("roots", nargs="*", type=Path, default=[ROOT])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--only", help="comma-separated workload names")
    args = parser.parse_args()
    names = set(args.only.split(",")) if args.only else None
    heads = " || ".join(f"{r.name[:12]:>12} cpu   wall  import first warm" for r in args.roots)
    print(f"{'workload (CPU s, best of ' + str(args.runs) + ')':32} {heads}")
    with tempfile.TemporaryDirectory() as tmp:
        for workload in WORKLOADS:
            if names is None or workload.name in names:
                rows = measure(args.roots, workload.trickle, args.runs, f"{tmp}/job.py")
                cells = " || ".join(" " * 12 + " ".join(f"{x:.3f}" for x in row) for row in rows)
                print(f"{workload.name:32} {cells}", flush=True)


if __name__ == "__main__":
    main()
