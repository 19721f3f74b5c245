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
    # Tenant JSON Schemas (reports.schema_bounds): checked at save so that validation costs
    # at most a bounded number of schema evaluations per data node, and a deadline for the
    # validation itself that grows with the data (reports.schema_validator).
    schema_max_bytes: int = 128 * 1024
    schema_max_nodes: int = 10_000
    schema_max_depth: int = 16
    schema_max_expansion: int = 20_000
    schema_validation_seconds: float = 1.0
    schema_validation_seconds_per_mb: float = 2.0
    # Bytes of drawn charts kept per process; largest chart side (CSS px) and data rows.
    chart_cache_bytes: int = 64 * 1024 * 1024
    chart_max_side_px: int = 2000
    chart_max_rows: int = 10000
    # Hosts remote images, CSS and fonts may come from; empty means no network.
    remote_allowed_hosts: frozenset[str] = field(default_factory=frozenset)
    # The chromium renderer's browser, and how many jobs one warm browser serves.
    chromium_path: str = "/usr/bin/chromium"
    chromium_max_jobs: int = 100
    # Each browser process's data-segment ceiling (heap and ArrayBuffers, workers' too),
    # the user the browser runs as when the worker is root, and its sandbox when it can run.
    chromium_process_memory_mb: int = 2048
    chromium_run_as: str = "nobody"
    chromium_sandbox: bool = True
    # LibreOffice for office conversions (rendering.office): its command, the directory its
    # profiles live in (one per worker process), and the most a conversion's files may be.
    office_path: str = "soffice"
    office_profile_dir: str = "/tmp/pdfreports-office"  # noqa: S108 - settings set VAR_DIR's
    max_office_bytes: int = 4 * 1024 * 1024


# What a caller that passes no limits gets: the documented defaults.
DEFAULT_LIMITS = Limits()


def size_text(size: int) -> str:
    """A byte count as people read sizes in messages: "5 MB", "0.5 MB", "1.23 MB" (MB of
    1,048,576 bytes, as the limits are set); under 0.01 MB in bytes."""
    megabytes = size / (1024 * 1024)
    if megabytes < 0.01:
        return f"{size} bytes"
    return f"{megabytes:.2f}".rstrip("0").rstrip(".") + " MB"
