"""Operations: alerts and who they reach (mail, a chat webhook), the mail backend (also for
the mail to a job's owner), worker presence and a worker host's metrics endpoint."""

from __future__ import annotations

from config.env import env_admins, env_bool, env_float, env_int, env_str
from config.settings.core import VAR_DIR

# ---------------------------------------------------------------- alerts
# Beat evaluates each rule this often; an alert opens once when its condition holds and
# resolves when it has stayed clear (jobs/ops/alerts.py).
ALERT_INTERVAL_SECONDS = env_int("ALERT_INTERVAL_SECONDS", 60, minimum=5)
ALERT_WINDOW_SECONDS = env_int("ALERT_WINDOW_SECONDS", 3600, minimum=60)
# The seed's two rules: average generation time and failure rate over the window.
ALERT_GENERATION_SECONDS = env_float("ALERT_GENERATION_SECONDS", 30.0, minimum=0)
ALERT_FAILURE_RATE = env_float("ALERT_FAILURE_RATE", 0.05, minimum=0)
# Fewer finished jobs than this in the window say nothing about either rate.
ALERT_MIN_JOBS = env_int("ALERT_MIN_JOBS", 1, minimum=1)
ALERT_QUEUE_AGE_SECONDS = env_int("ALERT_QUEUE_AGE_SECONDS", 300, minimum=1)
# Dead letters written within the window (whose job is still failed) that open an alert.
ALERT_DEAD_LETTERS = env_int("ALERT_DEAD_LETTERS", 1, minimum=1)
# An open alert resolves once its condition has stayed clear this long (no flapping).
ALERT_RESOLVE_AFTER_SECONDS = env_int("ALERT_RESOLVE_AFTER_SECONDS", 300, minimum=0)
# A Slack-compatible incoming webhook ({"text": ...}); alerts also mail ADMINS.
ALERT_WEBHOOK_URL = env_str("ALERT_WEBHOOK_URL", "") or ""
ALERT_WEBHOOK_TIMEOUT_SECONDS = env_int("ALERT_WEBHOOK_TIMEOUT_SECONDS", 10, minimum=1)

# ---------------------------------------------------------------- email
ADMINS = env_admins("ADMINS")
EMAIL_BACKEND = env_str("EMAIL_BACKEND", "django.core.mail.backends.smtp.EmailBackend") or ""
EMAIL_FILE_PATH = env_str("EMAIL_FILE_PATH", str(VAR_DIR / "mail")) or ""
EMAIL_HOST = env_str("EMAIL_HOST", "localhost") or "localhost"
EMAIL_PORT = env_int("EMAIL_PORT", 25, minimum=1)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER", "") or ""
EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD", "") or ""
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", False)
# Seconds an SMTP exchange may take: a mail task gives up and retries instead of hanging.
EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 10, minimum=1)
# Job mail (jobs/owner_mail.py) and alert mail come from here.
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "pdf-reports@localhost") or ""
SERVER_EMAIL = env_str("SERVER_EMAIL", DEFAULT_FROM_EMAIL) or ""
EMAIL_SUBJECT_PREFIX = "[pdf-reports] "

# ---------------------------------------------------------------- workers seen from outside
# Each worker's main process says it is alive this often (three missed: gone).
WORKER_PRESENCE_SECONDS = env_int("WORKER_PRESENCE_SECONDS", 10, minimum=1)
# A host that runs only workers serves its metrics here (0: off; web hosts serve /metrics).
WORKER_METRICS_PORT = env_int("WORKER_METRICS_PORT", 0, minimum=0)
WORKER_METRICS_ADDR = env_str("WORKER_METRICS_ADDR", "127.0.0.1") or "127.0.0.1"

# ---------------------------------------------------------------- health (jobs/readiness.py)
# One deadline for every readiness check (database, broker, redis, storage, renderer).
HEALTH_CHECK_TIMEOUT_SECONDS = env_float("HEALTH_CHECK_TIMEOUT_SECONDS", 3.0, minimum=0.1)
# A worker's main process runs the checks this often, and each pool child asks its warm
# Chromium to answer; both write what they found to WORKER_HEALTH_DIR for `manage.py health`.
WORKER_HEALTH_SECONDS = env_float("WORKER_HEALTH_SECONDS", 10.0, minimum=0.5)
WORKER_HEALTH_DIR = env_str("WORKER_HEALTH_DIR", str(VAR_DIR / "health")) or ""
# A warm Chromium that does not answer a CDP call within this is wedged: killed, and the
# next job starts a new one.
WORKER_RENDERER_PING_SECONDS = env_float("WORKER_RENDERER_PING_SECONDS", 5.0, minimum=0.1)
# A pool child whose watchdog has not written for this long is stuck (a render holding the
# interpreter, a stopped process): the main process kills it and Celery starts another.
WORKER_CHILD_WEDGED_SECONDS = env_float("WORKER_CHILD_WEDGED_SECONDS", 60.0, minimum=1.0)
# At start, a worker launches a Chromium of its own once (a subprocess) before it reports
# ready: a browser or driver that cannot start (a missing shared library) shows there.
WORKER_RENDERER_LAUNCH_CHECK = env_bool("WORKER_RENDERER_LAUNCH_CHECK", True)
