"""Native-lowering coverage of a conformance corpus (default: scripts and queries).

Usage: ``python benchmarks/coverage.py [CATEGORY ...]``. Prints, per category, the share of
expression nodes whose construct lowers natively, how many programs get a native pre-filter,
and the most frequent fallback reasons.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
CONFORMANCE = ROOT.parent / "shared" / "conformance"


def main(argv: list[str]) -> int:
    from compiler.diagnostics import CompileError
    from compiler.lowering.prefilter import native_drop_plan
    from compiler.lowering.report import NATIVE, classify, expressions, ir_scripts
    from compiler.pipeline import check_program, kind_of, read_source

    for category in argv or ["scripts", "queries"]:
        reasons: Counter[str] = Counter()
        total = native = programs = planned = 0
        for folder in sorted((CONFORMANCE / category).iterdir()):
            files = [p for p in folder.iterdir() if p.suffix in (".tremor", ".trickle")]
            if not files:
                continue
            try:
                ir = check_program(read_source(files[0]), kind_of(files[0])).ir
            except CompileError:
                continue
            programs += 1
            planned += native_drop_plan(ir) is not None
            exprs = [e for code in ir_scripts(ir) for e in expressions(code.script)]
            for expr in exprs:
                verdict = classify(expr)
                total += 1
                native += verdict == NATIVE
                reasons[verdict] += verdict != NATIVE
        print(f"{category}: {programs} programs, {planned} with a native pre-filter")
        print(
            f"  expression nodes: {total}, lowerable natively: {native} ({100*native/total:.1f}%)"
        )
        for reason, count in reasons.most_common(6):
            if count:
                print(f"  {count:5d}  {reason}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
