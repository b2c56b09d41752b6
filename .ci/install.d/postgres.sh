#!/usr/bin/env bash
# PostgreSQL (Debian) for tests/connectors/test_jdbc.py and its JDBC driver in ~/.m2 (Spark's
# spark.jars.packages resolver reads the local Maven cache): idempotent.
set -euo pipefail
if ! ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1; then
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql postgresql-client >/dev/null
fi
if [ ! -e ~/.m2/repository/org/postgresql/postgresql/42.7.8/postgresql-42.7.8.jar ]; then
    mvn -q org.apache.maven.plugins:maven-dependency-plugin:3.8.1:get \
        -Dartifact=org.postgresql:postgresql:42.7.8
fi
echo "postgres.sh: $(ls -d /usr/lib/postgresql/*/bin | head -1), org.postgresql:postgresql:42.7.8"
