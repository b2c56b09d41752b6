#!/usr/bin/env bash
# Elasticsearch: the integ-test-zip distribution (pure Java, no bundled JDK, runs on Java 17)
# from Maven Central into ~/.m2, unzipped once (see BASE below); and `requests`, the HTTP
# client of the elastic connector. Idempotent: what is there already is not fetched again.
set -euo pipefail
ES_VERSION="${ES_VERSION:-7.17.0}"
GET="org.apache.maven.plugins:maven-dependency-plugin:3.8.1"
M2="${HOME}/.m2/repository"
# Elasticsearch refuses to run as root: tests run it as `nobody` then, which can not read
# root's home, so root installs it under /opt.
if [ "$(id -u)" = 0 ]; then BASE=/opt/tremorc; else BASE="${HOME}/.cache/tremorc"; fi
HOME_DIR="${BASE}/elasticsearch-${ES_VERSION}"

if ! command -v mvn >/dev/null || ! command -v java >/dev/null; then
    apt-get update -qq && apt-get install -y -qq maven default-jre-headless unzip >/dev/null
fi
python3 -c 'import requests' 2>/dev/null ||
    python3 -m pip install --quiet --disable-pip-version-check 'requests>=2.28'

zip="${M2}/org/elasticsearch/distribution/integ-test-zip/elasticsearch/${ES_VERSION}/elasticsearch-${ES_VERSION}.zip"
[ -f "$zip" ] || mvn -B -q "$GET:get" -Dtransitive=false \
    -Dartifact="org.elasticsearch.distribution.integ-test-zip:elasticsearch:${ES_VERSION}:zip"
if [ ! -x "${HOME_DIR}/bin/elasticsearch" ]; then
    tmp="$(mktemp -d)"
    python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$zip" "$tmp"
    mkdir -p "$(dirname "$HOME_DIR")"
    rm -rf "$HOME_DIR"
    mv "$tmp/elasticsearch-${ES_VERSION}" "$HOME_DIR"
    chmod +x "$HOME_DIR"/bin/*
    chmod -R a+rX "$HOME_DIR"
    rm -rf "$tmp"
fi
echo "elastic.sh: Elasticsearch ${ES_VERSION} in ${HOME_DIR}, requests"
