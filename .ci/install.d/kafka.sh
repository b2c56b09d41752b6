#!/usr/bin/env bash
# Kafka: a KRaft broker's classpath (org.apache.kafka:kafka_2.13 and its runtime dependencies,
# from Maven Central into ~/.m2), Spark's Kafka source and sink (spark-sql-kafka-0-10_2.13 of
# the pinned pyspark, which the jobs load through spark.jars.packages) and the test client
# (confluent-kafka). Idempotent: what is there already is not fetched again.
set -euo pipefail
KAFKA_VERSION="${KAFKA_VERSION:-4.1.1}"
SPARK_VERSION="$(python3 -c 'import pyspark; print(pyspark.__version__)')"
GET="org.apache.maven.plugins:maven-dependency-plugin:3.8.1"
M2="${HOME}/.m2/repository"
CLASSPATH_FILE="${HOME}/.cache/tremorc/kafka-${KAFKA_VERSION}.classpath"

if ! command -v mvn >/dev/null || ! command -v java >/dev/null; then
    apt-get update -qq && apt-get install -y -qq maven default-jre-headless >/dev/null
fi
python3 -c 'import confluent_kafka' 2>/dev/null ||
    python3 -m pip install --quiet --disable-pip-version-check 'confluent-kafka>=2.3'

spark_jar="${M2}/org/apache/spark/spark-sql-kafka-0-10_2.13/${SPARK_VERSION}"
[ -d "$spark_jar" ] ||
    mvn -B -q "$GET:get" -Dartifact="org.apache.spark:spark-sql-kafka-0-10_2.13:${SPARK_VERSION}"

pom="${M2}/org/apache/kafka/kafka_2.13/${KAFKA_VERSION}/kafka_2.13-${KAFKA_VERSION}.pom"
if [ ! -s "$CLASSPATH_FILE" ]; then
    [ -f "$pom" ] || mvn -B -q "$GET:get" -Dartifact="org.apache.kafka:kafka_2.13:${KAFKA_VERSION}"
    mkdir -p "$(dirname "$CLASSPATH_FILE")"
    mvn -B -q -f "$pom" "$GET:build-classpath" -Dmdep.includeScope=runtime \
        -Dmdep.outputFile="${CLASSPATH_FILE}.tmp"
    jar="${M2}/org/apache/kafka/kafka_2.13/${KAFKA_VERSION}/kafka_2.13-${KAFKA_VERSION}.jar"
    printf '%s:%s\n' "$jar" "$(cat "${CLASSPATH_FILE}.tmp")" >"$CLASSPATH_FILE"
    rm -f "${CLASSPATH_FILE}.tmp"
fi
echo "kafka.sh: Kafka ${KAFKA_VERSION} broker classpath in ${CLASSPATH_FILE}," \
    "spark-sql-kafka-0-10_2.13:${SPARK_VERSION}, confluent-kafka"
