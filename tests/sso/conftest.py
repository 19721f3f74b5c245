"""A real OpenID provider for the SSO tests: panva's oidc-provider on node, installed into
var/ from tests/sso/provider/package-lock.json the first time (npm ci, then cached), started
on a free loopback port for each test that asks for it."""

from __future__ import annotations

import fcntl
import filecmp
import json
import shutil
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.processes import BASE_DIR, free_port, tail

SOURCE = Path(__file__).resolve().parent / "provider"
INSTALL = BASE_DIR / "var" / "oidc-provider"
CLIENT_ID, CLIENT_SECRET = "pdf-reports", "test-client-secret"


@dataclass
class Provider:
    issuer: str
    process: subprocess.Popen[bytes]
    emails: Path

    def change_email(self, login: str, email: str) -> None:
        """From the next sign-in, the subject `login` has this (verified) address."""
        found = json.loads(self.emails.read_text()) if self.emails.exists() else {}
        self.emails.write_text(json.dumps({**found, login: email}))

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)


def _installed() -> Path:
    """var/oidc-provider with the locked packages; npm runs only when the lock changed."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.fail("the SSO tests need node and npm (Debian: apt-get install nodejs npm)")
    INSTALL.mkdir(parents=True, exist_ok=True)
    # Test processes side by side (pytest-xdist) install one at a time: the second finds the
    # first one's work done. The copy of the lock is written last, once `npm ci` succeeded.
    installed = INSTALL / "installed-package-lock.json"
    with (INSTALL.parent / "oidc-provider.lock").open("w") as guard:
        fcntl.flock(guard, fcntl.LOCK_EX)
        wanted = SOURCE / "package-lock.json"
        if not (installed.exists() and filecmp.cmp(installed, wanted, shallow=False)):
            installed.unlink(missing_ok=True)
            for name in ("package.json", "package-lock.json"):
                shutil.copy(SOURCE / name, INSTALL / name)
            subprocess.run(
                [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
                cwd=INSTALL,
                check=True,
                timeout=300,
            )
            shutil.copy(wanted, installed)
        shutil.copy(SOURCE / "provider.mjs", INSTALL / "provider.mjs")
    return INSTALL


@pytest.fixture(scope="session")
def provider_install() -> Path:
    return _installed()


def start_provider(install: Path, *, redirect_uri: str, log: Path) -> Provider:
    port = free_port()
    emails = log.with_name("oidc-provider-emails.json")
    process = subprocess.Popen(
        ["node", "provider.mjs", str(port), CLIENT_ID, CLIENT_SECRET, redirect_uri, str(emails)],
        cwd=install,
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
    )
    provider = Provider(issuer=f"http://127.0.0.1:{port}", process=process, emails=emails)
    deadline = time.monotonic() + 20
    while "ready at" not in tail(log):
        if process.poll() is not None or time.monotonic() > deadline:
            provider.stop()
            pytest.fail(f"the OIDC provider did not start:\n{tail(log)}")
        time.sleep(0.05)
    return provider


@pytest.fixture
def oidc_provider(provider_install, live_server, settings, tmp_path) -> Iterator[Provider]:
    """The provider, and the service (the live server) configured as its client."""
    provider = start_provider(
        provider_install,
        redirect_uri=f"{live_server.url}/login/sso/callback/",
        log=tmp_path / "oidc-provider.log",
    )
    settings.OIDC_ISSUER_URL = provider.issuer
    settings.OIDC_RP_CLIENT_ID = CLIENT_ID
    settings.OIDC_RP_CLIENT_SECRET = CLIENT_SECRET
    settings.OIDC_PROVIDER_NAME = "Test OP"
    yield provider
    provider.stop()
