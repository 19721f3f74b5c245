"""A real S3 protocol server for the tests (moto_server, in memory) behind a TCP gate
(socat) that a test closes to make the store refuse connections and opens again without
losing what it holds."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import boto3
import httpx

from config.settings.data import s3_report_storage
from tests.processes import free_port

BUCKET = "pdf-reports-test"
REGION = "us-east-1"
KEY_ID, SECRET = "testing-key", "testing-secret"  # moto accepts any


class S3Server:
    def __init__(self, log: Path, *, host: str = "127.0.0.1") -> None:
        self.host = host
        self.port = free_port()
        self.gate_port = free_port()
        self.log = log
        self.proc: subprocess.Popen[bytes] | None = None
        self.gate: subprocess.Popen[bytes] | None = None

    @property
    def direct_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def endpoint_url(self) -> str:
        """What the service is given: through the gate."""
        return f"http://{self.host}:{self.gate_port}"

    def start(self) -> None:
        moto = Path(sys.executable).with_name("moto_server")
        self.proc = subprocess.Popen(
            [str(moto), "-H", self.host, "-p", str(self.port)],
            stdout=self.log.open("ab"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(self.direct_url, timeout=1)
                break
            except httpx.HTTPError:
                assert self.proc.poll() is None, self.log.read_text()
                assert time.monotonic() < deadline, "moto_server did not start"
                time.sleep(0.1)
        self.client().create_bucket(Bucket=BUCKET)
        self.gate_open()

    def gate_open(self) -> None:
        socat = shutil.which("socat")
        assert socat, "socat is needed (apt-get install socat)"
        self.gate = subprocess.Popen(
            [
                socat,
                f"TCP-LISTEN:{self.gate_port},bind={self.host},reuseaddr,fork",
                f"TCP:{self.host}:{self.port}",
            ],
            start_new_session=True,
        )
        deadline = time.monotonic() + 10
        while True:
            try:
                httpx.get(self.endpoint_url, timeout=1)
                return
            except httpx.HTTPError:
                assert time.monotonic() < deadline, "the S3 gate did not open"
                time.sleep(0.05)

    def gate_close(self) -> None:
        """Refuse connections, and cut the ones open (socat's forked children too)."""
        if self.gate is not None and self.gate.poll() is None:
            os.killpg(self.gate.pid, signal.SIGKILL)
            self.gate.wait(timeout=10)
        self.gate = None

    def stop(self) -> None:
        self.gate_close()
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)

    def client(self) -> Any:
        return boto3.client(
            "s3",
            endpoint_url=self.direct_url,
            region_name=REGION,
            aws_access_key_id=KEY_ID,
            aws_secret_access_key=SECRET,
        )

    def keys(self, prefix: str = "") -> list[str]:
        pages = (
            self.client().get_paginator("list_objects_v2").paginate(Bucket=BUCKET, Prefix=prefix)
        )
        return sorted(item["Key"] for page in pages for item in page.get("Contents", []))

    def env(self) -> dict[str, str]:
        """The settings a process of the service reads (config/settings/data.py)."""
        return {
            "AWS_STORAGE_BUCKET_NAME": BUCKET,
            "AWS_S3_ENDPOINT_URL": self.endpoint_url,
            "AWS_S3_REGION_NAME": REGION,
            "AWS_ACCESS_KEY_ID": KEY_ID,
            "AWS_SECRET_ACCESS_KEY": SECRET,
        }

    def storage_setting(self) -> dict[str, Any]:
        """STORAGES["reports"] for this process, as production builds it (the credentials
        come from the environment: see use_in_this_process)."""
        return s3_report_storage(bucket=BUCKET, endpoint_url=self.endpoint_url, region_name=REGION)
