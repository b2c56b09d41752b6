#!/usr/bin/env bash
# Websocket and cron connectors (tests/connectors/test_net_ws.py, tests/connectors/test_crononome.py): the `websockets`
# library (the connectors and the tests' real peer) and `croniter` (crononome's schedules).
set -euo pipefail
python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore 'websockets>=13' 'croniter>=6'
echo "ws.sh: websockets $(python3 -c 'import websockets; print(websockets.__version__)')," \
  "croniter $(python3 -m pip show croniter 2>/dev/null | sed -n 's/^Version: //p')"
