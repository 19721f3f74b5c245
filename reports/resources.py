"""What a rendering document may load (the resource policy) and what it was refused."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from django.conf import settings
from xhtml2pdf.config.resources import ResourceAccessPolicy

ASSETS_DIR = Path(__file__).with_name("assets")


def resource_policy(*, max_render_seconds: float | None = None) -> ResourceAccessPolicy:
    """Untrusted HTML: data URIs and the bundled assets only; remote hosts only when
    PDF_REMOTE_ALLOWED_HOSTS names them (and never private addresses, even then)."""
    hosts = frozenset(host.lower() for host in settings.PDF_REMOTE_ALLOWED_HOSTS)
    return ResourceAccessPolicy.server(
        base_dir=ASSETS_DIR,
        allow_remote=bool(hosts),
        allowed_hosts=hosts or None,
        allow_private_networks=False,
        max_render_seconds=max_render_seconds or settings.PDF_MAX_RENDER_SECONDS,
        max_document_bytes=settings.PDF_MAX_HTML_BYTES,
        max_depth=settings.PDF_MAX_NESTING_DEPTH,
    )


class _WarningCollector(logging.Handler):
    """Collects xhtml2pdf's warnings raised by this thread's render."""

    def __init__(self) -> None:
        super().__init__(level=logging.WARNING)
        self.thread = threading.get_ident()
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.thread == self.thread and len(self.messages) < 50:
            self.messages.append(record.getMessage()[:300])


@contextmanager
def collect_warnings() -> Iterator[list[str]]:
    """Collect the warnings xhtml2pdf logs for this thread's render (refused resources…)."""
    logger = logging.getLogger("xhtml2pdf")
    collector = _WarningCollector()
    logger.addHandler(collector)
    try:
        yield collector.messages
    finally:
        logger.removeHandler(collector)
