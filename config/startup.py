"""A process that cannot start on its configuration says so in one line, naming the
setting (ImproperlyConfigured's message), instead of a traceback through the loader."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.core.exceptions import ImproperlyConfigured


@contextmanager
def refuse_bad_configuration(process: str) -> Iterator[None]:
    """Turn an ImproperlyConfigured raised inside into exit status 1 and one line on stderr."""
    try:
        yield
    except ImproperlyConfigured as exc:
        raise SystemExit(f"{process}: refusing to start: {exc}") from None
