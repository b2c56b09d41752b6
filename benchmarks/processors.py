"""Throughput of the processor chains alone (no Spark): what one executor core does per file.

``python benchmarks/processors.py [EVENTS]`` prints events/s for a gzip and a zstd file of JSON
lines through ``decompress`` + ``separate`` (a file source's chain) and for events through
``compress`` + ``base64`` + ``separate`` and ``separate`` + ``streaming-compress`` (file sinks).
"""

from __future__ import annotations

import gzip
import sys
import time

import cramjam

from runtime_support.io.processors import PostChain, preprocess_stream


def _rate(label: str, count: int, run) -> None:  # noqa: ANN001 - a thunk
    start = time.perf_counter()
    run()
    seconds = time.perf_counter() - start
    print(f"{label:48s} {count / seconds:12,.0f} events/s  ({seconds:.2f} s)")


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    events = [b'{"host":"web-%d","level":"info","i":%d}' % (i % 7, i) for i in range(count)]
    lines = b"".join(e + b"\n" for e in events)
    files = {"gzip": gzip.compress(lines), "zstd": bytes(cramjam.zstd.compress(lines))}
    for name, blob in files.items():
        spec = [{"name": "decompress", "config": {"algorithm": name}}, "separate"]
        _rate(
            f"decompress({name}) + separate",
            count,
            lambda s=spec, b=blob: preprocess_stream(s, b, 0),
        )
        _rate(
            f"decompress(autodetect) + separate [{name}]",
            count,
            lambda b=blob: preprocess_stream(["decompress", "separate"], b, 0),
        )
    sinks = {
        "compress(zstd) + base64 + separate": [
            {"name": "compress", "config": {"algorithm": "zstd"}},
            "base64",
            "separate",
        ],
        "compress(gzip) + separate": [
            {"name": "compress", "config": {"algorithm": "gzip"}},
            "separate",
        ],
        "separate + streaming-compress(zstd)": [
            "separate",
            {"name": "streaming-compress", "config": {"algorithm": "zstd"}},
        ],
    }
    for label, spec in sinks.items():

        def run(spec=spec) -> None:  # noqa: ANN001
            chain = PostChain(spec)
            for event in events:
                chain.process(event)
            chain.finish()

        _rate(label, count, run)


if __name__ == "__main__":
    main()
