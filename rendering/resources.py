"""What a rendering document may load (the resource policy) and what it was refused."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from xhtml2pdf.config.resources import ResourceAccessPolicy

from rendering.limits import DEFAULT_LIMITS, Limits

ASSETS_DIR = Path(__file__).with_name("assets")


def resource_policy(limits: Limits = DEFAULT_LIMITS) -> ResourceAccessPolicy:
    """Untrusted HTML: data URIs and the bundled assets only; remote hosts only when the
    limits name them (and never private addresses, even then)."""
    hosts = limits.remote_allowed_hosts
    return ResourceAccessPolicy.server(
        base_dir=ASSETS_DIR,
        allow_remote=bool(hosts),
        allowed_hosts=hosts or None,
        allow_private_networks=False,
        max_render_seconds=limits.max_render_seconds,
        max_document_bytes=limits.max_html_bytes,
        max_depth=limits.max_nesting_depth,
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
