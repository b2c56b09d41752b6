#!/usr/bin/env bash
# dns_client connector (tests/connectors/test_dns.py): dnspython, its resolver (setup.cfg's
# install_requires), and dnslib, the tests' real DNS server (setup.cfg's `test` extra).
set -euo pipefail
python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore \
  'dnspython>=2.6' 'dnslib>=0.9.24'
echo "dns.sh: dnspython $(python3 -c 'import dns.version; print(dns.version.version)')," \
  "dnslib $(python3 -c 'import dnslib; print(dnslib.version)')"
