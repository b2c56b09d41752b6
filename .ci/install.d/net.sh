#!/usr/bin/env bash
# Network connectors (tests/connectors/test_net_*.py): their peers are Python's own socket and http.server
# (tests/support/servers/net_peer.py), so nothing but the http_client's `requests` is needed.
set -euo pipefail
python3 -m pip install --quiet --disable-pip-version-check 'requests>=2.31'
echo "net.sh: requests $(python3 -c 'import requests; print(requests.__version__)') (peers: python stdlib)"
