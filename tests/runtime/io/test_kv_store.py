"""The ``kv`` store's commands and the connector's compile checks, without Spark.

Expectations written by hand from tremor-runtime: ``tremor-connectors/src/impls/kv.rs`` (the
commands, the answer shapes, the error messages) and ``tremor-cli/tests/integration/kv``
(``in.json`` → ``expected.json``, ``expected_err.json``).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from compiler.diagnostics import CompileError
from compiler.pipeline import compile_source
from compiler.source import Source
from runtime_support.io.connectors.kv_store import STORE_FILE, Store, parse_command

# tremor-cli/tests/integration/kv/in.json: ($kv, event) per line; $correlation is the event's
# JSON (the test's `in` pipeline sets it).
TREMOR_IN: list[tuple[dict, Any]] = [
    ({"get": "snot"}, 1),
    ({"put": "snot"}, "badger"),
    ({"swap": "snot"}, "velociraptor"),
    ({"get": "snot"}, 3),
    ({"put": "heinz"}, "ketchup"),
    ({"get": "heinz"}, 5),
    ({"scan": ""}, 6),
    ({"scan": "snot"}, 7),
    ({"scan": "heinz", "end": "meins"}, 8),
    ({"scan": "", "end": "heinz"}, 9),
    ({"cas": "heinz", "old": "gies"}, "ketchup"),
    ({"cas": "heinz", "old": "ketchup"}, "gies"),
    ({"delete": "matthias"}, 12),
    ({"get": "matthias"}, 13),
    ({"delete": "heinz"}, 14),
    ({"get": "heinz"}, 15),
    ({"delete": "snot"}, 16),
    ({"get": "snot"}, 17),
    ({"put": "exit"}, "exit"),
    ({"get": "exit"}, 19),
]


def ok(op: str, key: bytes, value: Any, correlation: str) -> tuple:
    return ("out", value, {"kv": {"op": op, "ok": key}, "correlation": correlation})


# expected.json and expected_err.json, in emission order (Tremor's test writes the two ports to
# two files; the line of the command that failed is its err answer).
TREMOR_EXPECTED = [
    ok("get", b"snot", None, "1"),
    ok("put", b"snot", "badger", '"badger"'),
    ok("swap", b"snot", "badger", '"velociraptor"'),
    ok("get", b"snot", "velociraptor", "3"),
    ok("put", b"heinz", "ketchup", '"ketchup"'),
    ok("get", b"heinz", "ketchup", "5"),
    ok("scan", b"heinz", "ketchup", "6"),
    ok("scan", b"snot", "velociraptor", "6"),
    ok("scan", b"snot", "velociraptor", "7"),
    ok("scan", b"heinz", "ketchup", "8"),
    (
        "err",
        None,
        {
            "error": "CAS error: expected ketchup but found ketchup.",
            "kv": {"op": "cas", "key": [104, 101, 105, 110, 122]},
            "correlation": '"ketchup"',
        },
    ),
    ok("cas", b"heinz", None, '"gies"'),
    ok("delete", b"matthias", None, "12"),
    ok("get", b"matthias", None, "13"),
    ok("delete", b"heinz", "gies", "14"),
    ok("get", b"heinz", None, "15"),
    ok("delete", b"snot", "velociraptor", "16"),
    ok("get", b"snot", None, "17"),
    ok("put", b"exit", "exit", '"exit"'),
    ok("get", b"exit", "exit", "19"),
]


def answers(store: Store, commands: list[tuple[dict, Any]], correlate: bool = True) -> list:
    from runtime_support.tremor.jsonio import encode_json

    got = []
    for kv, event in commands:
        meta = {"kv": kv, "correlation": encode_json(event)} if correlate else {"kv": kv}
        got.extend(store.answer(event, meta))
    return got


def test_tremor_integration_sequence(tmp_path: Path) -> None:
    store = Store(str(tmp_path))
    assert answers(store, TREMOR_IN) == TREMOR_EXPECTED
    store.commit()


def test_missing_and_invalid_commands_answer_on_err(tmp_path: Path) -> None:
    store = Store(str(tmp_path))
    assert store.answer(1, {}) == [
        ("err", None, {"error": "Missing `$kv` field for commands", "kv": None})
    ]
    assert store.answer(1, {"kv": {"fetch": "a"}, "correlation": 7}) == [
        ("err", None, {"error": 'Invalid command: {"fetch":"a"}', "kv": None, "correlation": 7})
    ]
    # a key must be a string or binary: {"get": 1} is no command, Tremor's get_bytes is None
    assert store.answer(1, {"kv": {"get": 1}})[0][2]["error"] == 'Invalid command: {"get":1}'
    assert store.answer(1, {"kv": "get"})[0][2]["error"] == "Invalid command: get"
    # the first present of get, put, swap, cas, delete, scan is the command
    assert parse_command({"kv": {"scan": "a", "put": "b"}})[:2] == ("put", b"b")
    store.rollback()


def test_binary_keys_scan_in_byte_order(tmp_path: Path) -> None:
    store = Store(str(tmp_path))
    for key in (b"\xff\x00", "b", "a", b"a\x00"):
        store.answer({"k": key if isinstance(key, str) else list(key)}, {"kv": {"put": key}})
    scanned = store.answer(None, {"kv": {"scan": b""}})
    assert [meta["kv"]["ok"] for _, _, meta in scanned] == [b"a", b"a\x00", b"b", b"\xff\x00"]
    assert scanned[3][1] == {"k": [255, 0]}
    ranged = store.answer(None, {"kv": {"scan": "a", "end": b"b"}})
    assert [meta["kv"]["ok"] for _, _, meta in ranged] == [b"a", b"a\x00"]
    assert store.answer(None, {"kv": {"scan": "z", "end": "a"}}) == []
    store.commit()


def test_cas_compares_the_stored_json(tmp_path: Path) -> None:
    store = Store(str(tmp_path))
    # no `old`: the key must be absent
    assert store.answer({"b": 1, "a": 2}, {"kv": {"cas": "k"}}) == [
        ("out", None, {"kv": {"op": "cas", "ok": b"k"}})
    ]
    again = store.answer(3, {"kv": {"cas": "k"}})
    assert again[0][2]["error"] == 'CAS error: expected 3 but found {"a":2,"b":1}.'
    # `old` is compared as sorted JSON, so the key order of a record does not matter
    assert store.answer(3, {"kv": {"cas": "k", "old": {"a": 2, "b": 1}}})[0][0] == "out"
    # `old: null` is the value null, not an absent key
    missing = store.answer(4, {"kv": {"cas": "nothing", "old": None}})
    assert missing[0][2]["error"] == "CAS error: expected 4 but found null."
    assert store.answer(None, {"kv": {"get": "k"}})[0][1] == 3
    store.commit()


def test_values_are_sorted_json_and_survive_a_reopen(tmp_path: Path) -> None:
    store = Store(str(tmp_path))
    store.answer({"z": [1.5, None], "a": "x"}, {"kv": {"put": "r"}})
    store.commit()
    with sqlite3.connect(tmp_path / STORE_FILE) as db:
        assert db.execute("SELECT value FROM kv").fetchall() == [(b'{"a":"x","z":[1.5,null]}',)]
    store = Store(str(tmp_path))
    assert store.answer(None, {"kv": {"get": "r"}})[0][1] == {"a": "x", "z": [1.5, None]}
    store.answer(None, {"kv": {"delete": "r"}})
    store.rollback()  # a failed task: nothing it applied stays
    assert Store(str(tmp_path)).answer(None, {"kv": {"get": "r"}})[0][1] == {
        "a": "x",
        "z": [1.5, None],
    }


def test_applied_micro_batches(tmp_path: Path) -> None:
    store = Store(str(tmp_path))
    assert not store.applied("main::kv", "run1", 0)
    store.mark("main::kv", "run1", 3)
    store.commit()
    store = Store(str(tmp_path))
    assert store.applied("main::kv", "run1", 3) and store.applied("main::kv", "run1", 2)
    assert not store.applied("main::kv", "run1", 4) and not store.applied("other", "run1", 0)
    store.rollback()


def test_path_must_be_a_directory(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="Invalid `dir`. Not a directory or not accessible."):
        Store(str(tmp_path / "absent"))


FLOW = """define flow main flow
  define connector input from file
  with codec = "json", preprocessors = ["separate"], config = {"path": "in", "mode": "read"}
  end;
  define connector out from file
  with codec = "json", postprocessors = ["separate"], config = {"path": "o", "mode": "truncate"}
  end;
  define connector kv from kv with WITH end;
  define pipeline a pipeline select event from in into out; end;
  define pipeline b pipeline select event from in into out; end;
  create connector input; create connector out; create connector kv;
  create pipeline a; create pipeline b;
  connect /connector/input to /pipeline/a; connect /pipeline/a to /connector/kv;
  CONNECTS
end;
deploy flow main;
"""


def compile_flow(with_: str = 'config = {"path": "data"}', connects: str = "") -> str:
    text = FLOW.replace("WITH", with_).replace("CONNECTS", connects)
    return compile_source(Source("t.troy", text), "deploy").job


def error_of(with_: str = 'config = {"path": "data"}', connects: str = "") -> str:
    with pytest.raises(CompileError) as caught:
        compile_flow(with_, connects)
    return caught.value.render()


def test_answers_compile_to_a_second_pass() -> None:
    job = compile_flow(connects="connect /connector/kv/out to /pipeline/b; "
                       "connect /pipeline/b to /connector/out;")  # fmt: skip
    assert 'answered=("main/out/in",)' in job
    assert 'meta_outputs=("main/kv/in",)' in job


@pytest.mark.parametrize(
    ("with_", "expected"),
    [
        ("config = {}", "path"),
        ('config = {"path": "d", "dir": "x"}', "dir"),
        ('codec = "json", config = {"path": "d"}', "can't be configured with a codec"),
        ('postprocessors = ["separate"], config = {"path": "d"}', "postprocessors would not run"),
    ],
)
def test_config_errors(with_: str, expected: str) -> None:
    assert expected in error_of(with_)


def test_a_pipeline_fed_by_kv_and_a_source_is_rejected() -> None:
    message = error_of(connects="connect /connector/kv/err to /pipeline/a;")
    assert "The pipeline `a` gets the responses of `kv` and events of a source" in message


def test_sink_checks_its_directory_on_the_driver(tmp_path: Path) -> None:
    from runtime_support.io.connectors.base import ConnectorSpec, build_sink

    sink = "runtime_support.io.connectors.kv.KvSink"
    absent = {"config": {"path": str(tmp_path / "absent")}}
    with pytest.raises(ValueError, match="kv connector `main::kv`: Invalid `dir`"):
        build_sink(ConnectorSpec("main::kv", "kv", absent, sink=sink))
    assert build_sink(
        ConnectorSpec("main::kv", "kv", {"config": {"path": str(tmp_path)}}, sink=sink)
    )
