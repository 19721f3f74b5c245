"""Jobs and rendering: retries, time limits, heartbeats, repair, callbacks, render limits."""

from __future__ import annotations

from config.env import env_bool, env_fernet_key, env_int, env_list, env_str
from config.settings.core import VAR_DIR

# ---------------------------------------------------------------- PDF jobs
PDF_MAX_RETRIES = env_int("PDF_MAX_RETRIES", 3, minimum=0)
# Attempts of any kind (a killed worker counts) before a job is failed as poison.
PDF_MAX_ATTEMPTS = env_int("PDF_MAX_ATTEMPTS", 5, minimum=1)
PDF_RETRY_BACKOFF_SECONDS = env_int("PDF_RETRY_BACKOFF_SECONDS", 2, minimum=1)
PDF_RETRY_BACKOFF_MAX_SECONDS = env_int("PDF_RETRY_BACKOFF_MAX_SECONDS", 300, minimum=1)
# An unreachable or failing object store is retried this long (from its first error seen
# by the job), apart from PDF_MAX_RETRIES and without spending attempts, at most
# PDF_STORAGE_RETRY_MAX_SECONDS apart.
PDF_STORAGE_OUTAGE_SECONDS = env_int("PDF_STORAGE_OUTAGE_SECONDS", 600, minimum=1)
PDF_STORAGE_RETRY_MAX_SECONDS = env_int("PDF_STORAGE_RETRY_MAX_SECONDS", 30, minimum=1)
PDF_SOFT_TIME_LIMIT = env_int("PDF_SOFT_TIME_LIMIT", 120, minimum=1)
PDF_HARD_TIME_LIMIT = env_int("PDF_HARD_TIME_LIMIT", 150, minimum=2)
# A running attempt stamps heartbeat_at this often; one silent for STALE seconds is dead.
PDF_HEARTBEAT_SECONDS = env_int("PDF_HEARTBEAT_SECONDS", 5, minimum=1)
PDF_HEARTBEAT_STALE_SECONDS = env_int("PDF_HEARTBEAT_STALE_SECONDS", 30, minimum=2)
# A running attempt looks this often whether its job was cancelled (one indexed read), and
# then stops its render: the worker is free again within about this long.
PDF_CANCEL_CHECK_SECONDS = env_int("PDF_CANCEL_CHECK_SECONDS", 1, minimum=1)
# A running job writes (and publishes) its progress once it has run FIRST ms, then at most
# every INTERVAL ms: a one-page job (~0.1-0.3 s on a busy worker) finishes before the first
# write, so it costs a claim and a completion, not a progress write and its events too.
# An interval of 0 writes every stage (no coalescing, no first delay).
PDF_PROGRESS_INTERVAL_MS = env_int("PDF_PROGRESS_INTERVAL_MS", 100, minimum=0)
PDF_PROGRESS_FIRST_MS = env_int("PDF_PROGRESS_FIRST_MS", 500, minimum=0)
# A report with at least PDF_CHUNK_MIN_TAGS tags is laid out as PDF_CHUNKS chunks on as
# many worker processes at once (split at top-level page breaks); 1 lays everything out
# in one process.
PDF_CHUNKS = env_int("PDF_CHUNKS", 2, minimum=1)
PDF_CHUNK_MIN_TAGS = env_int("PDF_CHUNK_MIN_TAGS", 5000, minimum=1)
# The reconciler re-sends queued jobs older than this that have no message in the broker.
RECONCILE_QUEUED_AFTER_SECONDS = env_int("RECONCILE_QUEUED_AFTER_SECONDS", 60, minimum=1)
# ...and takes back processing jobs whose heartbeat is older than the hard limit plus this.
RECONCILE_PROCESSING_MARGIN_SECONDS = env_int("RECONCILE_PROCESSING_MARGIN_SECONDS", 30, minimum=0)
RECONCILE_INTERVAL_SECONDS = env_int("RECONCILE_INTERVAL_SECONDS", 60, minimum=1)
DLQ_MAX_AGE_SECONDS = env_int("DLQ_MAX_AGE", 24 * 3600, minimum=60)
DLQ_MAX_RETRIES = env_int("DLQ_MAX_RETRIES", 3, minimum=0)
DLQ_REDRIVE_INTERVAL_SECONDS = env_int("DLQ_REDRIVE_INTERVAL", 3600, minimum=1)
# Most items one POST generate-pdf-batch may carry.
PDF_MAX_BATCH = env_int("PDF_MAX_BATCH", 100, minimum=1)
# Most records one run (POST /api/v1/runs) may carry, and the most of its records its
# status answer lists (the rest are paged with ?records_offset=).
RUN_MAX_RECORDS = env_int("RUN_MAX_RECORDS", 5000, minimum=1)
RUN_STATUS_MAX_RECORDS = env_int("RUN_STATUS_MAX_RECORDS", 1000, minimum=10)
# A run's combined PDF is built once on a worker (runs.combined). The build's time
# limit; a build started longer ago than this is taken as dead and may start again.
RUN_COMBINED_BUILD_SECONDS = env_int("RUN_COMBINED_BUILD_SECONDS", 1800, minimum=60)
# ---------------------------------------------------------------- Retention
# A job's PDF is deleted this many days after the job completed (0 keeps PDFs forever);
# the job stays, reporting expired: true. A stored object shared by result-cache hits goes
# only when the last job pointing at it has expired.
PDF_RETENTION_DAYS = env_int("PDF_RETENTION_DAYS", 7, minimum=0)
# Finished jobs (with their webhook deliveries and dead letters) are deleted this many days
# after they finished (0 keeps them forever).
JOB_RETENTION_DAYS = env_int("JOB_RETENTION_DAYS", 90, minimum=0)
# How often beat runs the retention task.
RETENTION_INTERVAL_SECONDS = env_int("RETENTION_INTERVAL_SECONDS", 3600, minimum=10)
# ---------------------------------------------------------------- Completion callbacks
# POST of the job's final event to its callback_url.
CALLBACK_MAX_ATTEMPTS = env_int("CALLBACK_MAX_ATTEMPTS", 6, minimum=1)
# One deadline for the whole callback exchange (connect, send, answer), and the most of
# the answer that is read: a receiver dripping bytes cannot hold a worker.
CALLBACK_TIMEOUT_SECONDS = env_int("CALLBACK_TIMEOUT_SECONDS", 5, minimum=1)
# ...of which connecting may take at most this much.
CALLBACK_CONNECT_TIMEOUT_SECONDS = env_int("CALLBACK_CONNECT_TIMEOUT_SECONDS", 2, minimum=1)
# Deliveries one tenant may have in progress at once on the callbacks threads; a tenant
# whose delivery took CALLBACK_SLOW_SECONDS or more gets one thread for
# CALLBACK_SLOW_BACKOFF_SECONDS, and its waiting deliveries are pushed further back.
CALLBACK_MAX_CONCURRENT_PER_TENANT = env_int("CALLBACK_MAX_CONCURRENT_PER_TENANT", 2, minimum=1)
CALLBACK_SLOW_SECONDS = env_int("CALLBACK_SLOW_SECONDS", 3, minimum=1)
CALLBACK_SLOW_BACKOFF_SECONDS = env_int("CALLBACK_SLOW_BACKOFF_SECONDS", 60, minimum=1)
# Callbacks of finished jobs not yet delivered (nor given up) a tenant may have; a submit
# with a callback_url past it is a 429 (cache hits and cancels make deliveries too).
CALLBACK_MAX_OUTSTANDING_PER_TENANT = env_int("CALLBACK_MAX_OUTSTANDING_PER_TENANT", 100, minimum=1)
CALLBACK_MAX_RESPONSE_BYTES = env_int("CALLBACK_MAX_RESPONSE_BYTES", 64 * 1024, minimum=1024)
# Callbacks to loopback/private addresses are refused unless allowed (SSRF from a tenant).
CALLBACK_ALLOW_PRIVATE_NETWORKS = env_bool("CALLBACK_ALLOW_PRIVATE_NETWORKS", False)
# Signed bodies still travel in clear over http: only https unless this is set to false
# (the development and test settings allow http receivers on loopback).
CALLBACK_REQUIRE_HTTPS = env_bool("CALLBACK_REQUIRE_HTTPS", True)
# After a webhook secret is rotated, the old one keeps signing beside the new for this long.
WEBHOOK_SECRET_GRACE_SECONDS = env_int("WEBHOOK_SECRET_GRACE_SECONDS", 24 * 3600, minimum=0)
# Absolute links (pdf_url in callbacks, mail links) need the public address of the web
# service. `make run` sets it from HOST and PORT; production requires it.
PUBLIC_BASE_URL = (env_str("PUBLIC_BASE_URL", "http://127.0.0.1:8000") or "").rstrip("/")
# Bearer token required by /metrics; empty leaves it open, which the web process allows
# only on a loopback address (config.safety).
METRICS_TOKEN = env_str("METRICS_TOKEN", "") or ""
# Completed jobs slower than this (submit to completion) are logged as a warning.
PDF_SLOW_JOB_SECONDS = env_int("PDF_SLOW_JOB_SECONDS", 30, minimum=1)
# Test-only fault points (sleep, kill the child) read from a job's data; never in production.
PDF_FAULT_INJECTION = env_bool("PDF_FAULT_INJECTION", False)
PDF_URL_TTL_SECONDS = env_int("PDF_URL_TTL_SECONDS", 3600, minimum=60)
PDF_MAX_TEMPLATE_BYTES = env_int("PDF_MAX_TEMPLATE_BYTES", 512 * 1024, minimum=1024)
PDF_MAX_DATA_BYTES = env_int("PDF_MAX_DATA_BYTES", 5 * 1024 * 1024, minimum=1024)
PDF_MAX_HTML_BYTES = env_int("PDF_MAX_HTML_BYTES", 20 * 1024 * 1024, minimum=1024)
PDF_MAX_PAGES = env_int("PDF_MAX_PAGES", 500, minimum=1)
# Deepest nesting of data (at submit) and of rendered HTML elements (at layout).
PDF_MAX_NESTING_DEPTH = env_int("PDF_MAX_NESTING_DEPTH", 100, minimum=10)
# Wall-clock budget of the layout of one report; below the Celery soft limit so the job
# fails with a clear message instead of being interrupted.
PDF_MAX_RENDER_SECONDS = env_int("PDF_MAX_RENDER_SECONDS", 90, minimum=1)
# Remote images, CSS and fonts are off unless this names the hosts they may come from.
PDF_REMOTE_ALLOWED_HOSTS = env_list("PDF_REMOTE_ALLOWED_HOSTS", [])
PDF_MAX_CHARTS = env_int("PDF_MAX_CHARTS", 100, minimum=1)
# Bounds on a template's JSON Schema, checked when it is saved (docs/operations/
# hostile-input-schemas.md): its JSON size and node count, the deepest chain of in-place
# applicators (allOf/anyOf/oneOf/not/if/$ref...) at one data location, and the subschemas
# it expands to with its $refs followed. Together they keep validation linear in the data.
PDF_SCHEMA_MAX_BYTES = env_int("PDF_SCHEMA_MAX_BYTES", 128 * 1024, minimum=1024)
PDF_SCHEMA_MAX_NODES = env_int("PDF_SCHEMA_MAX_NODES", 10_000, minimum=100)
PDF_SCHEMA_MAX_DEPTH = env_int("PDF_SCHEMA_MAX_DEPTH", 16, minimum=4)
PDF_SCHEMA_MAX_EXPANSION = env_int("PDF_SCHEMA_MAX_EXPANSION", 20_000, minimum=100)
# Wall-clock budget of one data validation against a schema (submit, preview, save): a
# base plus so much per MB of data (3.2 MB of 50,000 rows validates in 2.3 s here, so 5 MB
# of data gets 11 s; a hostile schema with a few bytes of data is stopped after 1 s).
PDF_SCHEMA_VALIDATION_MS = env_int("PDF_SCHEMA_VALIDATION_MS", 1000, minimum=50)
PDF_SCHEMA_VALIDATION_MS_PER_MB = env_int("PDF_SCHEMA_VALIDATION_MS_PER_MB", 2000, minimum=0)
# Rendered charts kept per process, bounded by their bytes (a chart can be megabytes).
PDF_CHART_CACHE_BYTES = env_int("PDF_CHART_CACHE_BYTES", 64 * 1024 * 1024, minimum=0)
# Largest chart side, in CSS pixels, before it is rasterised (at 2x), and most data rows.
PDF_CHART_MAX_SIDE_PX = env_int("PDF_CHART_MAX_SIDE_PX", 2000, minimum=100)
PDF_CHART_MAX_ROWS = env_int("PDF_CHART_MAX_ROWS", 10000, minimum=10)
PDF_PREVIEW_MAX_SECONDS = env_int("PDF_PREVIEW_MAX_SECONDS", 10, minimum=1)
# Previews run on the `previews` queue; the web process waits this long for the PNG.
PDF_PREVIEW_WAIT_SECONDS = env_int("PDF_PREVIEW_WAIT_SECONDS", 20, minimum=1)
# Previews and thumbnails one tenant may have waiting or rendering at once (the next is a
# 429), so one user cannot fill the previews queue.
PREVIEW_MAX_IN_FLIGHT_PER_TENANT = env_int("PREVIEW_MAX_IN_FLIGHT_PER_TENANT", 3, minimum=1)
# A thumbnail that could not be rendered is not tried again for this long (no re-render
# of a failing template on every gallery visit).
THUMBNAIL_FAILURE_TTL_SECONDS = env_int("THUMBNAIL_FAILURE_TTL_SECONDS", 300, minimum=1)
# Most pixels a preview page is rasterised to, whatever page size the template asks for.
PDF_PREVIEW_MAX_PIXELS = env_int("PDF_PREVIEW_MAX_PIXELS", 4_000_000, minimum=10_000)
# Unit tests only: render previews in the calling process (no worker runs there).
PDF_PREVIEW_IN_PROCESS = env_bool("PDF_PREVIEW_IN_PROCESS", False)
# Round robin between tenants when a worker slot frees (jobs.worker.fairness); off is FIFO.
PDF_FAIR_DISPATCH = env_bool("PDF_FAIR_DISPATCH", True)
PDF_TEMPLATE_TIMEOUT_MS = env_int("PDF_TEMPLATE_TIMEOUT_MS", 5000, minimum=10)
PDF_TEMPLATE_MAX_MEMORY_MB = env_int("PDF_TEMPLATE_MAX_MEMORY_MB", 256, minimum=16)
# The browser of the chromium renderer (Debian's package) and how many jobs one warm
# browser serves before it is replaced.
CHROMIUM_PATH = env_str("CHROMIUM_PATH", "/usr/bin/chromium") or "/usr/bin/chromium"
PDF_CHROMIUM_MAX_JOBS = env_int("PDF_CHROMIUM_MAX_JOBS", 100, minimum=1)
# Data-segment ceiling (RLIMIT_DATA: heap, ArrayBuffers, Web Workers) of each browser
# process; a page past it fails its allocation or crashes, never the worker (0: none).
CHROMIUM_PROCESS_MEMORY_MB = env_int("CHROMIUM_PROCESS_MEMORY_MB", 2048, minimum=0)
# A worker running as root starts the browser as this user (empty: as root, which also
# rules out the sandbox); Chromium's sandbox is used whenever it can run.
CHROMIUM_RUN_AS = env_str("CHROMIUM_RUN_AS", "nobody") or ""
CHROMIUM_SANDBOX = env_bool("CHROMIUM_SANDBOX", True)
# LibreOffice for office conversions (Debian's libreoffice-*-nogui and python3-uno): its
# command, where each worker process keeps its own profile, and the most a conversion's
# files may weigh together (a request body is bounded by REQUEST_MAX_BODY_BYTES as well).
OFFICE_PATH = env_str("OFFICE_PATH", "soffice") or "soffice"
OFFICE_PROFILE_DIR = env_str("OFFICE_PROFILE_DIR", str(VAR_DIR / "office")) or ""
PDF_MAX_OFFICE_BYTES = env_int("PDF_MAX_OFFICE_BYTES", 4 * 1024 * 1024, minimum=1024)
SSE_HEARTBEAT_SECONDS = env_int("SSE_HEARTBEAT_SECONDS", 15, minimum=1)
# Request bodies carry the template and data; allow the configured maxima plus headroom.
DATA_UPLOAD_MAX_MEMORY_SIZE = PDF_MAX_TEMPLATE_BYTES + PDF_MAX_DATA_BYTES + 64 * 1024
# Checked by core.body_limit in front of Django, before authentication: a larger body is
# a 413 without being read (Django would spool it to disk first).
REQUEST_MAX_BODY_BYTES = env_int(
    "REQUEST_MAX_BODY_BYTES", DATA_UPLOAD_MAX_MEMORY_SIZE, minimum=64 * 1024
)
# The drop-in routes (Gotenberg, jsreport, DocRaptor) answer the PDF itself when asked
# synchronously: the request waits this long for its job, then answers 504 with the job id.
ADAPTER_WAIT_SECONDS = env_int("ADAPTER_WAIT_SECONDS", 60, minimum=1)
# ...and a caller without a valid API key or signed-in session may send at most this
# (a sign-in form); a larger body is a 401 before it is read.
REQUEST_MAX_ANONYMOUS_BODY_BYTES = env_int(
    "REQUEST_MAX_ANONYMOUS_BODY_BYTES", 64 * 1024, minimum=1024
)

# ---------------------------------------------------------------- signing certificates
# Fernet key (urlsafe base64 of 32 bytes) sealing uploaded PKCS#12 files and passwords;
# empty: derived from DJANGO_SECRET_KEY (rotating that key then orphans the certificates).
PDF_CERTIFICATE_KEY = env_fernet_key("PDF_CERTIFICATE_KEY")
# A sign step's timestamp_url must be https on a public address (SSRF from a tenant);
# this allows http and loopback/private addresses (the tests' own timestamp authority).
PDF_TIMESTAMP_ALLOW_PRIVATE_NETWORKS = env_bool("PDF_TIMESTAMP_ALLOW_PRIVATE_NETWORKS", False)
