"""What a tenant sees of an error: plain text without server paths, and for an internal
error a reference that finds the full text (and traceback) in the log and the admin."""

from __future__ import annotations

import logging
import re
import sys
import sysconfig
import tempfile
import uuid
from functools import lru_cache
from pathlib import Path

from django.conf import settings

logger = logging.getLogger("jobs.errors")


def new_reference() -> str:
    return uuid.uuid4().hex[:12]


@lru_cache(maxsize=1)
def _server_roots() -> tuple[str, ...]:
    # Longest first, so the assets directory is named before the checkout that holds it.
    roots = {
        str(settings.BASE_DIR),
        str(getattr(settings, "VAR_DIR", "")),
        str(getattr(settings, "MEDIA_ROOT", "")),
        sys.prefix,
        sys.base_prefix,
        sysconfig.get_paths()["purelib"],
        tempfile.gettempdir(),
        str(Path.home()),
    }
    return tuple(sorted((r.rstrip("/") for r in roots if len(r) > 1), key=len, reverse=True))


@lru_cache(maxsize=1)
def _server_path() -> re.Pattern[str]:
    alternatives = "|".join(re.escape(root) for root in _server_roots())
    return re.compile(rf"(?:{alternatives})(?:/[^\s'\")]*)?")


def public_text(text: str) -> str:
    """`text` with every path on this server replaced by `<server path>`."""
    return _server_path().sub("<server path>", text)


def public_error(text: str, *, job_id: object) -> str:
    """A permanent error's message for the tenant; if it named server paths, the full
    text is logged under a reference the message carries."""
    shown = public_text(text)
    if shown == text:
        return text
    reference = new_reference()
    logger.warning("job %s ref=%s: %s", job_id, reference, text)
    return f"{shown} (ref {reference})"


def internal_error(error: BaseException, *, job_id: object, what: str) -> tuple[str, str]:
    """(message for the tenant, full text for the log and admin) of an unexpected error."""
    reference = new_reference()
    full = f"{type(error).__name__}: {error}"
    logger.error("job %s ref=%s: %s", job_id, reference, full, exc_info=error)
    return f"{what} (ref {reference}).", full
