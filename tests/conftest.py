"""Shared pytest options and fixtures."""

from __future__ import annotations

import os

import pytest
from hypothesis import settings

from tests.support.paths import ROOT

# CI must be reproducible: a red run means a real regression, not a new random draw. Locally the
# property tests explore fresh examples each run (and find real bugs that way).
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


def pytest_configure(config):
    """Every Spark driver of the run starts faster (see :mod:`tests.support.fast_jvm`)."""
    if not config.option.collectonly:
        from tests.support.fast_jvm import fast_test_jvms

        fast_test_jvms(ROOT)


@pytest.fixture(scope="session")
def spark():
    """One local SparkSession for the whole run (starting one costs ~5 s)."""
    from runtime_support.spark.session import get_session

    return get_session("tremorc-tests")


@pytest.fixture(scope="session")
def stream_spark(spark):
    """The session with a streaming job's settings (RocksDB state store)."""
    from runtime_support.spark.stream_job import STREAM_CONF

    for key, value in STREAM_CONF.items():
        spark.conf.set(key, value)
    return spark


@pytest.fixture(params=["tremor_json", "to_json"])
def json_writer(request, spark, monkeypatch):
    """The typed path's JSON text written by each writer: ``tremor_json`` (the test session
    loads it) and Spark's ``to_json`` with the escape rewrite (``TREMORC_JVM_JSON=off``, what a
    session without the jar runs)."""
    from runtime_support.spark.jvm_json import has_tremor_json, jar_path, why_not_built

    if request.param == "to_json":
        monkeypatch.setenv("TREMORC_JVM_JSON", "off")
    elif jar_path() is None:
        pytest.skip(f"{why_not_built()}: run .ci/install.d/jvm_json.sh")
    assert has_tremor_json(spark) is (request.param == "tremor_json")
    return request.param
