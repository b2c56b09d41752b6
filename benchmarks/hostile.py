"""The hostile-input accounting at scale (issue 10; never a unit test): ``--events`` labelled
hostile lines (``tests/support/hostile_events.py``) through the built job of
``tests/fixtures/hostile/hostile.trickle`` in each ``--mode``, every line checked against its
label as ``tests/e2e/test_hostile_input.py`` does; prints in, out, err, dropped and the window rows
per mode, the wall time, and whether the modes agree.

Usage::

    python benchmarks/hostile.py [--events 1000000] [--seed 10] [--mode batch ...]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.hostile_events import generate  # noqa: E402
from tests.support.hostile_run import MODES, account, run_job  # noqa: E402


def main() -> None:
    """Run each mode over the same lines and print the counts."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=10)
    parser.add_argument("--mode", action="append", choices=MODES)
    args = parser.parse_args()
    events = list(generate(args.events, seed=args.seed))
    kinds = Counter((e.fate, e.kind) for e in events)
    print("labels:", ", ".join(f"{fate}/{kind} {n}" for (fate, kind), n in sorted(kinds.items())))
    results = {}
    for mode in args.mode or MODES:
        with tempfile.TemporaryDirectory(prefix="hostile-") as folder:
            start = time.perf_counter()
            ports = run_job(mode, events, Path(folder))
            seconds = time.perf_counter() - start
        counts = account(events, ports)
        results[mode] = counts
        shown = " ".join(f"{k}={v}" for k, v in counts.items())
        print(f"{mode}: {shown} (in = out + err + dropped), {seconds:.1f} s")
    if len({tuple(sorted(c.items())) for c in results.values()}) > 1:
        sys.exit("the modes disagree")


if __name__ == "__main__":
    main()
