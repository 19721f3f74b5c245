"""Readiness checks of what a role needs: the database, the broker, Redis, report storage
and the renderer. Each runs on a thread of its own under one deadline, so a server that
hangs is reported as such instead of hanging the probe."""

from __future__ import annotations

import os
import shutil
import socket
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import Storage, storages
from django.db import connection
from kombu.connection import Connection

from core.redis import redis_client
from rendering.office_service import INSTALL_HINT


@dataclass(frozen=True)
class CheckResult:
    ok: bool
    detail: str
    ms: float = 0.0


def check_database() -> str:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    finally:
        connection.close()  # this thread's own connection
    return "SELECT 1 answered"


def check_broker() -> str:
    with Connection(settings.CELERY_BROKER_URL, connect_timeout=2) as broker:
        broker.ensure_connection(max_retries=1, interval_start=0, timeout=2)
        return f"{broker.transport_cls} broker connected"


def check_redis() -> str:
    redis_client().ping()
    return "PING answered"


def _storage_problem(exc: Exception, *, bucket: str) -> str:
    """botocore's errors name the S3 code (NoSuchBucket, AccessDenied); say it plainly."""
    response: dict[str, Any] = getattr(exc, "response", None) or {}
    code = str(response.get("Error", {}).get("Code", ""))
    if code in {"NoSuchBucket", "404"}:
        return f"the bucket {bucket!r} does not exist (AWS_STORAGE_BUCKET_NAME)"
    if code in {"AccessDenied", "403", "InvalidAccessKeyId", "SignatureDoesNotMatch"}:
        return f"the bucket {bucket!r} refuses writes ({code}); check the AWS_* credentials"
    text = str(exc).splitlines()[0] if str(exc) else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


# Probe objects whose delete failed (the store went away between the write and the
# delete): deleted by the next probe that finds the store working, so an outage leaves
# nothing behind in the bucket.
_undeleted: set[str] = set()
_undeleted_lock = threading.Lock()


def _delete_leftovers(storage: Storage) -> None:
    with _undeleted_lock:
        names = list(_undeleted)
    for name in names:
        storage.delete(name)
        with _undeleted_lock:
            _undeleted.discard(name)


def check_storage() -> str:
    """Write, read back and delete a small object: a bucket that exists but refuses writes
    is caught here, not by a failed job later."""
    storage = storages["reports"]
    name = f"_health/{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:8]}.txt"
    try:
        try:
            saved = storage.save(name, ContentFile(b"ok"))
        except Exception:
            # The write may have stored the object and lost only its answer (the store went
            # away mid-request): the next good probe deletes it, as any object left here.
            with _undeleted_lock:
                _undeleted.add(name)
            raise
        try:
            with storage.open(saved, "rb") as handle:
                if handle.read() != b"ok":
                    raise OSError("the object read back differs from the one written")
        finally:
            try:
                storage.delete(saved)
            except Exception:
                with _undeleted_lock:
                    _undeleted.add(saved)
                raise
        _delete_leftovers(storage)
    except Exception as exc:
        bucket = str(getattr(storage, "bucket_name", "") or "")
        raise OSError(_storage_problem(exc, bucket=bucket)) from None
    return f"wrote, read and deleted {name.split('/')[0]}/… on {type(storage).__name__}"


def check_renderer() -> str:
    """The Chromium binary is there to run; WeasyPrint and xhtml2pdf are libraries of this
    process. Workers add what their pool children say of their warm browsers."""
    path = Path(settings.CHROMIUM_PATH)
    if not (path.is_file() and os.access(path, os.X_OK)):
        raise OSError(f"Chromium is not executable at {path} (CHROMIUM_PATH)")
    # LibreOffice is optional (office conversions only): named when present, else said so.
    office = shutil.which(settings.OFFICE_PATH)
    if office is None:
        return f"Chromium at {path}; no LibreOffice (office conversions fail: {INSTALL_HINT})"
    return f"Chromium at {path}; LibreOffice (office) at {office}"


CHECKS: dict[str, Callable[[], str]] = {
    "database": check_database,
    "broker": check_broker,
    "redis": check_redis,
    "storage": check_storage,
    "renderer": check_renderer,
}


# Threads that outlive a probe: a storage client (boto3's, per thread in django-storages)
# costs a second or more to make, so each thread keeps the one it made. A check that hangs
# holds its thread until its own socket timeout; the pool has room for a few of those.
_pool = ThreadPoolExecutor(max_workers=4 * len(CHECKS), thread_name_prefix="readiness")


def run_checks(
    names: list[str] | None = None, *, timeout: float | None = None
) -> dict[str, CheckResult]:
    """Every named check at once; one that has not answered by `timeout` fails as such."""
    chosen = {name: CHECKS[name] for name in names or list(CHECKS)}
    deadline = settings.HEALTH_CHECK_TIMEOUT_SECONDS if timeout is None else timeout
    started = time.monotonic()

    def timed(check: Callable[[], str]) -> CheckResult:
        begun = time.monotonic()
        try:
            detail = check()
        except Exception as exc:
            text = str(exc).splitlines()[0] if str(exc) else ""
            return CheckResult(False, text or type(exc).__name__, _ms(begun))
        return CheckResult(True, detail, _ms(begun))

    futures = {name: _pool.submit(timed, check) for name, check in chosen.items()}
    wait(futures.values(), timeout=deadline)
    results = {}
    for name, future in futures.items():
        if future.done():
            results[name] = future.result()
        else:
            results[name] = CheckResult(False, f"no answer within {deadline:g} s", _ms(started))
    return results


def results_json(results: dict[str, CheckResult]) -> dict[str, Any]:
    return {
        "status": "ok" if all(result.ok for result in results.values()) else "unavailable",
        "checks": {name: asdict(result) for name, result in results.items()},
    }


def _ms(since: float) -> float:
    return round((time.monotonic() - since) * 1000, 1)
