"""Conformance corpus through the Python backend, in process.

For every ``scripts`` case: parse, load modules, resolve, fold constants, generate, ``exec`` and
run each input line (ingest_ns = line index, state persisting, ``$ = {}``), comparing outputs
with ``out`` as canonical JSON. For ``script_runtime_errors``: the rendered error must equal
``error.txt``. Cases listed in ``tests/data/pyscript_passing.txt`` must pass (a ratchet).
"""

from __future__ import annotations

import lzma
from pathlib import Path
from typing import Any

import pytest

from runtime_support.tremor.context import EventContext
from runtime_support.tremor.errors import TremorError
from tests.support.paths import CONFORMANCE, ROOT

CORPUS = CONFORMANCE
PASSING = ROOT / "tests" / "data" / "pyscript_passing.txt"


def _read(case: Path, name: str) -> str | None:
    if (case / (name + ".xz")).exists():
        return lzma.decompress((case / (name + ".xz")).read_bytes()).decode()
    if (case / name).exists():
        return (case / name).read_text()
    return None


def compile_case(case: Path) -> tuple[Any, Any, Any]:
    """(entry function, generated script, source) for a corpus case directory."""
    from compiler.codegen.pyscript import generate_script
    from compiler.modules import load_modules
    from compiler.parse.script import parse_script
    from compiler.passes.resolve import resolve
    from compiler.source import Source

    source = Source.from_path(case / "script.tremor")
    tree = parse_script(source)
    modules = load_modules(tree, source, mounts=[str(case) + "/"])
    script = resolve(tree, source, modules)
    try:
        from compiler.passes.const_fold import fold_constants

        script = fold_constants(script, source)
    except ImportError:  # pragma: no cover
        pass
    gen = generate_script(script, source)
    namespace: dict[str, Any] = {}
    for spec in gen.imports:
        module, name = spec.split(":")
        namespace[name] = getattr(__import__(module, fromlist=[name]), name)
    exec(compile(gen.code, str(case / "script.tremor") + ".py", "exec"), namespace)  # noqa: S102
    return namespace[gen.entry], gen, source


def run_lines(entry: Any, lines: list[str], origin: str | None) -> list[Any]:
    from runtime_support.tremor.jsonio import decode_json

    state = None
    outputs = []
    for i, line in enumerate(lines):
        ctx = EventContext(ingest_ns=i, origin_uri=origin)
        port, value, _meta, state = entry(decode_json(line), {}, state, ctx)
        if port is not None:
            outputs.append(value)
    return outputs


def _lines(text: str) -> list[str]:
    return [ln for ln in text.splitlines() if ln.strip()]


def script_case_result(case: Path) -> tuple[bool, str]:
    from runtime_support.tremor.jsonio import canonical_json, decode_json

    try:
        entry, _gen, _src = compile_case(case)
        got = run_lines(entry, _lines(_read(case, "in") or ""), "snot://test:23/snot")
    except Exception as err:  # noqa: BLE001 - reported as a failure detail
        return False, f"{type(err).__name__}: {err}"
    want = [decode_json(ln) for ln in _lines(_read(case, "out") or "")]
    got_s = [canonical_json(v) for v in got]
    want_s = [canonical_json(v) for v in want]
    return got_s == want_s, f"got {got_s}\nwant {want_s}"


def runtime_error_case_result(case: Path) -> tuple[bool, str]:
    from runtime_support.tremor.jsonio import decode_json
    from runtime_support.tremor.script_rt import render_error

    want = (_read(case, "error.txt") or "").strip()
    try:
        entry, gen, source = compile_case(case)
        lines = _lines(_read(case, "in") or "")
        entry(decode_json(lines[0]), {}, None, EventContext(ingest_ns=0))
    except TremorError as err:
        got = render_error(err, source.text, gen.sites).strip()
        return got == want, f"got\n{got}\nwant\n{want}"
    except Exception as err:  # noqa: BLE001
        return False, f"{type(err).__name__}: {err}"
    return False, "no error raised"


def _cases(kind: str) -> list[str]:
    return sorted(p.name for p in (CORPUS / kind).iterdir() if (p / "script.tremor").exists())


def _passing() -> set[str]:
    if not PASSING.exists():
        return set()
    return {ln.strip() for ln in PASSING.read_text().splitlines() if ln.strip()}


@pytest.mark.parametrize("name", sorted(_passing()))
def test_listed_case_still_passes(name: str) -> None:
    kind, case = name.split("/")
    check = script_case_result if kind == "scripts" else runtime_error_case_result
    ok, detail = check(CORPUS / kind / case)
    assert ok, detail


def summary() -> dict[str, list[str]]:
    """Passing case names per corpus (used to refresh the ratchet file)."""
    result: dict[str, list[str]] = {}
    for kind, check in (
        ("scripts", script_case_result),
        ("script_runtime_errors", runtime_error_case_result),
    ):
        result[kind] = [c for c in _cases(kind) if check(CORPUS / kind / c)[0]]
    return result


if __name__ == "__main__":  # pragma: no cover - refresh the ratchet with --write
    import sys

    sys.path.insert(0, str(ROOT))
    if len(sys.argv) > 1 and "/" in sys.argv[1]:
        kind, case = sys.argv[1].split("/")
        check = script_case_result if kind == "scripts" else runtime_error_case_result
        print(check(CORPUS / kind / case))
        if "--code" in sys.argv:
            print(compile_case(CORPUS / kind / case)[1].code)
        sys.exit(0)

    res = summary()
    for kind, names in res.items():
        print(f"{kind}: {len(names)}/{len(_cases(kind))}", file=sys.stderr)
        print("  failing:", sorted(set(_cases(kind)) - set(names)), file=sys.stderr)
    if "--write" in sys.argv:
        PASSING.write_text("".join(f"{k}/{n}\n" for k, ns in res.items() for n in ns))
