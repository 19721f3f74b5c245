"""The hard limits of one render, as one value passed down (never read from settings here)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Limits:
    """Every bound a render or an input check enforces. The defaults equal the settings'
    defaults; the apps build the real value from settings in one place
    (`reports.limits.limits_from_settings`)."""

    max_template_bytes: int = 512 * 1024
    max_data_bytes: int = 5 * 1024 * 1024
    max_html_bytes: int = 20 * 1024 * 1024
    max_pages: int = 500
    # Deepest nesting of data (at submit) and of rendered HTML elements (at layout).
    max_nesting_depth: int = 100
    max_render_seconds: float = 90
    template_timeout_ms: int = 5000
    template_max_memory_mb: int = 256
    max_charts: int = 100
    chart_cache_size: int = 256
    # Hosts remote images, CSS and fonts may come from; empty means no network.
    remote_allowed_hosts: frozenset[str] = field(default_factory=frozenset)


# What a caller that passes no limits gets: the documented defaults.
DEFAULT_LIMITS = Limits()
