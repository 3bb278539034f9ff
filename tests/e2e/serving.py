"""``paigow serve`` in its own process for an e2e test: started on a free local port, waited for
until ``/health`` answers, stopped with SIGTERM (uvicorn shuts down gracefully) at the end."""

from __future__ import annotations

import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from tests.e2e.conftest import PAIGOW


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@dataclass
class Served:
    base: str
    process: subprocess.Popen[bytes]
    log: Path

    def stop(self, timeout: float = 30) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait(timeout=timeout)


@contextmanager
def serving(
    url: str, folder: Path, env: dict[str, str], *extra: str, timeout: float = 30
) -> Iterator[Served]:
    """The server on the database at ``url``, its log in ``folder/serve.log``; ready when
    ``/health`` answers (the test fails with the log if it exits or takes over ``timeout``)."""
    port = free_port()
    log = folder / "serve.log"
    with log.open("w") as err:
        process = subprocess.Popen(
            [str(PAIGOW), "serve", "--db", url, "--port", str(port), *extra],
            cwd=folder,
            stdout=subprocess.DEVNULL,
            stderr=err,
            env=env,
        )
    served = Served(f"http://127.0.0.1:{port}", process, log)
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                if httpx.get(f"{served.base}/health", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert process.poll() is None, log.read_text()
            assert time.monotonic() < deadline, "the server did not start: " + log.read_text()
            time.sleep(0.1)
        yield served
    finally:
        served.stop(timeout=max(timeout, 30))
