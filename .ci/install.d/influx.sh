#!/usr/bin/env bash
# InfluxDB 1.x for tests/e2e/test_examples_http_to_influx.py (tests/support/servers/influx.py starts its own
# influxd on free 127.0.0.1 ports with a generated config). Idempotent; the Debian package's
# system service is never started (policy-rc.d forbids it during the install, then it is removed).
set -euo pipefail
if ! command -v influxd >/dev/null 2>&1; then
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
  policy=/usr/sbin/policy-rc.d
  created=""
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$policy" >/dev/null
    $SUDO chmod +x "$policy"
    created=1
  fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get -y -qq install influxdb >/dev/null
  if [ -n "$created" ]; then $SUDO rm -f "$policy"; fi
fi
echo "influx.sh: $(influxd version 2>/dev/null | head -1)"
