#!/usr/bin/env bash
# OpenTelemetry connectors (tests/connectors/test_otel*.py, benchmarks/connector_otel.py): grpcio and
# opentelemetry-proto (the connectors, also in setup.cfg's install_requires) and the real OTLP
# senders of the tests, the OpenTelemetry SDK's OTLP gRPC exporters (setup.cfg's `test` extra).
set -euo pipefail
python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore \
  'grpcio>=1.60' 'opentelemetry-proto>=1.27' 'opentelemetry-sdk>=1.27' \
  'opentelemetry-exporter-otlp-proto-grpc>=1.27'
echo "otel.sh: grpcio $(python3 -c 'import grpc; print(grpc.__version__)')," \
  "opentelemetry-proto $(python3 -m pip show opentelemetry-proto 2>/dev/null | sed -n 's/^Version: //p')"
