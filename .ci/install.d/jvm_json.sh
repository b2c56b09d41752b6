#!/usr/bin/env bash
# tremor_json (runtime_support/jvm/tremorc): a JDK's javac and jar, then the jar compiled once
# into ~/.cache/tremorc/jvm against pyspark's own Spark jars (the test session loads it; the
# typed tests run with it and without it). Idempotent: a jar already built is reused.
set -euo pipefail
if ! command -v javac >/dev/null || ! command -v jar >/dev/null; then
    apt-get update -qq && apt-get install -y -qq default-jdk-headless >/dev/null
fi
jar="$(python3 -c 'from runtime_support.spark.jvm_json import build_jar, spark_jars_dir
print(build_jar(spark_jars_dir()))')"
echo "jvm_json.sh: $(javac -version 2>&1), tremor_json in ${jar}"
