#!/usr/bin/env bash
# The S3 tests' server (moto's, with boto3) and the s3a jars in ~/.m2: hadoop-aws matching
# pyspark's Hadoop (3.5.0) and the AWS SDK v2 modules it needs (s3, s3-transfer-manager, sts,
# about 30 MB with their dependencies) instead of the SDK bundle (several hundred MB).
# Idempotent.
set -euo pipefail
python3 -c 'import moto.server, boto3, flask' 2>/dev/null \
    || python3 -m pip install --quiet --disable-pip-version-check 'moto[server]'
get() {
    mvn -q org.apache.maven.plugins:maven-dependency-plugin:3.8.1:get -Dartifact="$1" "${@:2}"
}
m2=~/.m2/repository
[ -e $m2/org/apache/hadoop/hadoop-aws/3.5.0/hadoop-aws-3.5.0.jar ] \
    || get org.apache.hadoop:hadoop-aws:3.5.0 -Dtransitive=false
for module in s3 s3-transfer-manager sts; do
    [ -e $m2/software/amazon/awssdk/$module/2.35.4/$module-2.35.4.jar ] \
        || get software.amazon.awssdk:$module:2.35.4
done
echo "s3.sh: moto[server], hadoop-aws 3.5.0, AWS SDK 2.35.4 s3/s3-transfer-manager/sts"
