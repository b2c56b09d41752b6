"""End to end: a JSON-lines file of ``kv`` commands (a ``put`` of each sample event under its
name, then a ``get`` of it) → the ``kv`` connector (one Spark task applying them in order to
the sqlite3 store) → its ``out`` answers into a file, through the generated flow job. Prints
events/s (commands over the job's whole wall time, Spark's start included), the time to the
first answer in the output file, and whether every ``get`` saw its ``put``.

Usage::

    python benchmarks/connector_kv.py [--events 10000]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.flow_timing import sample_event, timed_job  # noqa: E402

FLOW = """define flow main
flow
  define connector src from file
  with codec = "json", preprocessors = ["separate"], config = {{"path": {path}, "mode": "read"}}
  end;
  define connector store from kv with config = {{"path": {data}}} end;
  define connector dst from file
  with codec = "json", postprocessors = ["separate"], config = {{"path": {out}, "mode": "truncate"}}
  end;
  define pipeline commands
  pipeline
    define script command script let $kv = event.kv; event.value end;
    create script command;
    select event from in into command;
    select event from command into out;
  end;
  define pipeline answers
  pipeline
    select {{"op": $kv.op, "value": event}} from in into out;
  end;
  create connector src; create connector store; create connector dst;
  create pipeline commands; create pipeline answers;
  connect /connector/src to /pipeline/commands;
  connect /pipeline/commands/out to /connector/store;
  connect /connector/store/out to /pipeline/answers;
  connect /pipeline/answers/out to /connector/dst;
end;
deploy flow main;
"""


def write_commands(path: Path, events: int) -> None:
    """``events`` commands: a put of sample event i under ``k<i>``, then a get of it."""
    with open(path, "w") as out:
        for i in range(events // 2):
            put = {"kv": {"put": f"k{i}"}, "value": sample_event(i)}
            out.write(json.dumps(put) + "\n")
            out.write(json.dumps({"kv": {"get": f"k{i}"}, "value": None}) + "\n")


def answers(folder: Path) -> list[dict]:
    parts = sorted(folder.glob("part-*")) if folder.is_dir() else []
    return [json.loads(line) for part in parts for line in part.read_text().splitlines() if line]


def run(folder: Path, events: int) -> dict:
    """Build and run the flow; events/s, the first answer's time and the check."""
    write_commands(folder / "in.json", events)
    (folder / "data").mkdir()
    text = FLOW.format(
        path=json.dumps(str(folder / "in.json")),
        data=json.dumps(str(folder / "data")),
        out=json.dumps(str(folder / "out")),
    )
    result = timed_job(folder, text, lambda: any((folder / "out").glob("part-*")))
    wall, first = result["wall_s"], result["first_s"]
    got = answers(folder / "out")
    gets = [a["value"] for a in got if a["op"] == "get"]
    ok = gets == [sample_event(i) for i in range(events // 2)]
    return {
        "events": events,
        "answers": len(got),
        "every_get_sees_its_put": ok,
        "seconds": round(wall, 2),
        "events_per_s": round(events / wall),
        "first_answer_s": round(first, 2) if first is not None else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=10_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        print(json.dumps(run(Path(folder), args.events)))


if __name__ == "__main__":
    main()
