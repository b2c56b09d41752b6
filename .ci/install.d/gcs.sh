#!/usr/bin/env bash
# The gcs_streamer tests' server, fake-gcs-server (go install, into $GOPATH/bin), and Google's
# gcs-connector for Hadoop's `gs` file system: its shaded jar (its own gRPC, protobuf and Guava
# relocated; Spark's --packages can not name the classifier, so jobs put it on spark.jars).
# Idempotent.
set -euo pipefail
get() {
    mvn -q org.apache.maven.plugins:maven-dependency-plugin:3.8.1:get -Dartifact="$1" "${@:2}"
}
m2=~/.m2/repository
[ -e $m2/com/google/cloud/bigdataoss/gcs-connector/3.1.3/gcs-connector-3.1.3-shaded.jar ] \
    || get com.google.cloud.bigdataoss:gcs-connector:3.1.3:jar:shaded -Dtransitive=false
if command -v go >/dev/null; then
    [ -x "$(go env GOPATH)/bin/fake-gcs-server" ] \
        || go install github.com/fsouza/fake-gcs-server@v1.56.1 \
        || echo "gcs.sh: fake-gcs-server did not install; the gcs_streamer server tests skip"
    echo "gcs.sh: gcs-connector 3.1.3 (shaded), fake-gcs-server v1.56.1"
else
    echo "gcs.sh: gcs-connector 3.1.3 (shaded); no Go toolchain, so no fake-gcs-server"
fi
