"""A real S3 endpoint for tests: moto_server on a free loopback port."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import boto3
import httpx

from tests.processes import free_port


@contextmanager
def moto_s3(log: Path, *, env: dict[str, str] | None = None) -> Iterator[str]:
    """Start moto_server, yield its endpoint URL, stop it."""
    port = free_port()
    proc = subprocess.Popen(
        [str(Path(__file__).resolve().parents[1] / ".venv/bin/moto_server"), "-p", str(port)],
        stdout=log.open("ab"),
        stderr=subprocess.STDOUT,
        env=env,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                httpx.get(url, timeout=1)
                break
            except httpx.HTTPError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"moto_server did not start: {log.read_text()}") from None
                time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def s3_client(endpoint: str, *, key: str = "testing", secret: str = "testing"):  # noqa: S107 - moto's test keys
    return boto3.client(
        "s3",
        endpoint_url=endpoint,
        region_name="us-east-1",
        aws_access_key_id=key,
        aws_secret_access_key=secret,
    )
