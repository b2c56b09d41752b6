#!/usr/bin/env bash
# ClickHouse (Debian's clickhouse-server, 18.16 on bookworm) for tests/connectors/test_jdbc.py and the
# shaded ClickHouse JDBC driver 0.3.2-patch11 (its legacy ru.yandex driver speaks the HTTP
# formats that server has) in ~/.m2: idempotent.
set -euo pipefail
if ! command -v clickhouse-server >/dev/null 2>&1 && [ ! -x /usr/sbin/clickhouse-server ]; then
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clickhouse-server >/dev/null
fi
jar=~/.m2/repository/com/clickhouse/clickhouse-jdbc/0.3.2-patch11/clickhouse-jdbc-0.3.2-patch11-all.jar
if [ ! -e "$jar" ]; then
    mvn -q org.apache.maven.plugins:maven-dependency-plugin:3.8.1:get \
        -Dartifact=com.clickhouse:clickhouse-jdbc:0.3.2-patch11:jar:all -Dtransitive=false
fi
echo "clickhouse.sh: clickhouse-server, com.clickhouse:clickhouse-jdbc:0.3.2-patch11:all"
