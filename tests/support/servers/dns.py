"""A real DNS server for the dns_client tests: dnslib's ``DNSServer`` (UDP) answering from a
fixed zone, authoritatively. ``python -m tests.support.servers.dns PORT_FILE`` listens on 127.0.0.1
on a
free UDP port, writes the port to PORT_FILE (moved in whole), appends ``<name> <type>`` to
QUERY_LOG for each query it answers (flushed at once) and runs until it is killed.

Answers as an authoritative server does: the records of the name and type asked; for a name
with a CNAME (asked another type), the CNAME then the target's records, followed in the zone;
NOERROR with no answer for a known name without that type; NXDOMAIN for an unknown name.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from typing import Any

from tests.support.servers.net_peer import _publish, stop

ZONE = """\
$TTL 300
tremorc.test.        IN SOA   ns.tremorc.test. admin.tremorc.test. 2026112401 3600 600 86400 60
tremorc.test.        IN NS    ns.tremorc.test.
tremorc.test.        IN MX    10 mail.tremorc.test.
tremorc.test.        IN A     192.0.2.1
tremorc.test.        IN A     192.0.2.2
tremorc.test.        IN AAAA  2001:db8::1
tremorc.test.        IN TXT   "v=spf1 " "-all"
ns.tremorc.test.     IN A     192.0.2.53
www.tremorc.test.    120 IN CNAME tremorc.test.
v6.tremorc.test.     IN AAAA  2001:db8::6
_svc._tcp.tremorc.test. IN SRV 1 2 8080 www.tremorc.test.
"""


class ZoneAnswers:
    """dnslib resolver over :data:`ZONE` (see the module doc)."""

    def __init__(self, zone: str, query_log: str) -> None:
        from dnslib import RR

        self.records = RR.fromZone(zone)
        self.query_log = query_log

    def _of(self, name: Any, rtype: int) -> list:
        return [r for r in self.records if r.rname == name and r.rtype == rtype]

    def resolve(self, request: Any, handler: Any) -> Any:
        from dnslib import QTYPE, RCODE

        reply = request.reply()
        name, qtype = request.q.qname, request.q.qtype
        with open(self.query_log, "a", encoding="utf-8") as handle:
            handle.write(f"{name} {QTYPE[qtype]}\n")
        if not any(r.rname == name for r in self.records):
            reply.header.rcode = RCODE.NXDOMAIN
            return reply
        for _ in range(8):  # a CNAME chain inside the zone
            alias = self._of(name, QTYPE.CNAME) if qtype != QTYPE.CNAME else []
            if not alias:
                break
            reply.add_answer(*alias)
            name = alias[0].rdata.label
        reply.add_answer(*self._of(name, qtype))
        return reply


def serve_dns(port_file: str, query_log: str) -> None:
    from dnslib.server import DNSLogger, DNSServer

    quiet = DNSLogger(log="-request,-reply,-truncated,-error,-recv,-send,-data", prefix=False)
    server = DNSServer(ZoneAnswers(ZONE, query_log), address="127.0.0.1", port=0, logger=quiet)
    _publish(port_file, server.server.server_address[1])
    server.start()


def start(folder: str) -> tuple[subprocess.Popen, int, str]:
    """Start the server: ``(process, port, query log)``; stop it with :func:`stop` (by its
    PID)."""
    port_file = os.path.join(folder, "dns.port")
    query_log = os.path.join(folder, "dns.queries")
    root = os.path.dirname(
        os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    )
    command = [sys.executable, "-m", "tests.support.servers.dns", port_file, query_log]
    process = subprocess.Popen(command, env={**os.environ, "PYTHONPATH": root}, cwd=root)
    deadline = time.monotonic() + 30
    while not os.path.exists(port_file):
        if process.poll() is not None or time.monotonic() > deadline:
            stop(process)
            raise RuntimeError("the DNS server did not start")
        time.sleep(0.05)
    with open(port_file, encoding="utf-8") as handle:
        return process, int(handle.read()), query_log


__all__ = ["ZONE", "start", "stop"]

if __name__ == "__main__":
    serve_dns(*sys.argv[1:3])
