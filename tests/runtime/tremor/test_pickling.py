"""Runtime sentinels keep their identity when Spark pickles generated code by value."""

from __future__ import annotations

import pickle

from pyspark import cloudpickle

from runtime_support.tremor.extractors import NO_MATCH
from runtime_support.tremor.script_rt import UNSET


def test_sentinels_survive_pickling() -> None:
    for sentinel in (UNSET, NO_MATCH):
        assert pickle.loads(pickle.dumps(sentinel)) is sentinel
        assert pickle.loads(cloudpickle.dumps(sentinel)) is sentinel


def test_generated_function_closing_over_unset_still_sees_it() -> None:
    namespace = {"UNSET": UNSET}
    exec("def probe(x):\n    return x is UNSET\n", namespace)  # noqa: S102
    probe = pickle.loads(cloudpickle.dumps(namespace["probe"]))
    assert probe(UNSET)
