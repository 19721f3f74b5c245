"""What a rendering document may load (the resource policy) and what it was refused."""

from __future__ import annotations

from contextlib import AbstractContextManager
from pathlib import Path

from xhtml2pdf.config.resources import ResourceAccessPolicy

from rendering.limits import DEFAULT_LIMITS, Limits
from rendering.thread_warnings import thread_warnings

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


def collect_warnings() -> AbstractContextManager[list[str]]:
    """Collect the warnings xhtml2pdf logs for this thread's render (refused resources…)."""
    return thread_warnings("xhtml2pdf")
