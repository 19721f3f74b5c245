"""A process that cannot start on its configuration says so in one line, naming the
setting (ImproperlyConfigured's message), instead of a traceback through the loader."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.core.exceptions import ImproperlyConfigured


@contextmanager
def refuse_bad_configuration(process: str = "") -> Iterator[None]:
    """Turn an ImproperlyConfigured raised inside into exit status 1 and one line on stderr."""
    try:
        yield
    except ImproperlyConfigured as exc:
        # The same words as the image's entrypoint (config/entrypoint.py), whoever refuses.
        raise SystemExit(f"configuration error: {exc}") from None
