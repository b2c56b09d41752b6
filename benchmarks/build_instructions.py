"""``tremorc build`` as a count of machine instructions: one CLI build per program and checkout
under valgrind's callgrind, which counts every instruction the interpreter executes.

    python3 benchmarks/build_instructions.py [--only a,b] [--big-lines 10000] ROOT [ROOT ...]

This machine's timings of one build move by 40 % between processes and by 2-3x between hours;
the instruction count of a build is the same on every run (within 0.1 %), so a change to the
compiler can be compared with the checkout before it whatever the hour. It measures work, not
time: cache misses and memory stalls are not in it. Each build is a fresh ``python -m compiler
build`` as a user runs it (bytecode compiled beforehand, as an installed package has it), about
60 times slower than without valgrind (the 10,020-line program takes ~3 minutes). Needs
``valgrind`` (Debian package ``valgrind``).

Invariant: every checkout builds the same programs (this checkout's workloads and its large
program), so the counts of different ROOTs compare as ratios.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from suite_build import big_program
from suite_data import WORKLOADS

DEFAULT = ("real-workflow-throughput-json", "batch", "match")
_REFS = re.compile(r"I\s+refs:\s+([\d,]+)")


def instructions(root: Path, program: Path, folder: Path) -> int:
    """Instructions executed by ``python -m compiler build program`` with ``root``'s compiler."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    command = [
        "valgrind",
        "--tool=callgrind",
        "--callgrind-out-file=/dev/null",
        sys.executable,
        "-m",
        "compiler",
        "build",
        str(program),
        "-o",
        str(folder / "job.py"),
    ]
    done = subprocess.run(command, env=env, cwd=folder, capture_output=True, text=True, check=True)
    found = _REFS.search(done.stderr)
    if found is None:
        raise RuntimeError(f"no instruction count in valgrind's output:\n{done.stderr[-2000:]}")
    return int(found.group(1).replace(",", ""))


def prepare(root: Path, program: Path, folder: Path) -> None:
    """The checkout's bytecode, grammar and template caches, written once (see ``suite_build``;
    Jinja's compiled templates are cached per template path, so a fresh checkout's first build
    compiles them: ~90 M instructions)."""
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", "compiler", "runtime_support"],
        cwd=root,
        check=True,
        capture_output=True,
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    # Both caches where the checkout has them: the parsimonious grammar and its copy (load_peg).
    load = (
        "import compiler.grammar as m; "
        "[getattr(m, f)(*n) for f in ('load_grammar', 'load_peg') if hasattr(m, f) "
        "for n in (('script',), ('query', 'script'), ('deploy', 'query', 'script'))]"
    )
    subprocess.run([sys.executable, "-c", load], cwd=root, env=env, check=True)
    build = [sys.executable, "-m", "compiler", "build", str(program), "-o", str(folder / "job.py")]
    subprocess.run(build, cwd=folder, env={**os.environ, "PYTHONPATH": str(root)}, check=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("roots", nargs="+", type=Path, help="checkouts to compare")
    parser.add_argument("--only", default=",".join(DEFAULT), help="workloads, comma-separated")
    parser.add_argument("--big-lines", type=int, default=10000, help="0: no large program")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is not installed (apt-get install valgrind)")
    names = [n for n in args.only.split(",") if n]
    by_name = {w.name: w for w in WORKLOADS}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        programs = [(name, by_name[name].trickle) for name in names]
        if args.big_lines:
            path, lines = big_program(folder, args.big_lines)
            programs.append((f"program of {lines:,} lines", path))
        for root in args.roots:
            prepare(root.resolve(), programs[0][1], folder)
        width = max(len(str(r)) for r in args.roots)
        print(f"{'program':32} " + " ".join(f"{str(r):>{max(width, 16)}}" for r in args.roots))
        for name, path in programs:
            counts = [instructions(root.resolve(), path, folder) for root in args.roots]
            cells = [f"{c / 1e6:>{max(width, 16) - 2},.0f} M" for c in counts]
            ratios = "  ".join(f"{c / counts[0]:.3f}" for c in counts[1:])
            print(f"{name:32} " + " ".join(cells) + (f"  ratio {ratios}" if ratios else ""))


if __name__ == "__main__":
    main()
