"""Storage outages: a transient class of its own. An object store that refuses
connections or answers 5xx usually comes back within minutes, so a job retries it for
PDF_STORAGE_OUTAGE_SECONDS (without spending its attempts) rather than the ~15 s the
ordinary retries last."""

from __future__ import annotations

import random
import time

from botocore.exceptions import ClientError, HTTPClientError
from botocore.exceptions import ConnectionError as BotoConnectionError
from django.conf import settings

_UNAVAILABLE_CODES = {"SlowDown", "ServiceUnavailable", "InternalError", "RequestTimeout"}


def _unavailable(exc: BaseException) -> bool:
    if isinstance(exc, BotoConnectionError | HTTPClientError | ConnectionError | TimeoutError):
        return True
    if isinstance(exc, ClientError):
        error = exc.response.get("Error", {})
        status = exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0)
        return error.get("Code") in _UNAVAILABLE_CODES or int(status or 0) >= 500
    return False


def storage_unavailable(exc: BaseException) -> bool:
    """The error, or one it was raised from (boto3 wraps upload errors), says the store
    could not be reached or is failing for now."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if _unavailable(current):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


def outage_countdown(*, since: float, retries: int) -> float | None:
    """Seconds until the next try during an outage that began at `since` (epoch seconds),
    with jitter; None once the outage has outlasted its budget."""
    if time.time() - since >= settings.PDF_STORAGE_OUTAGE_SECONDS:
        return None
    ceiling = min(settings.PDF_STORAGE_RETRY_MAX_SECONDS, 2.0 ** max(0, retries))
    return random.uniform(ceiling / 2, ceiling)  # noqa: S311 - jitter, not security
