"""Stopping a test server by its PID, the one way every launcher in this folder does it."""

from __future__ import annotations

import signal
import subprocess


def stop_process(process: subprocess.Popen, sig: int = signal.SIGTERM, timeout: float = 30) -> None:
    """Send ``sig`` to ``process``; SIGKILL it if it has not exited after ``timeout`` s. It has
    exited when this returns."""
    process.send_signal(sig)
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
