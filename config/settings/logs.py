"""Logging: JSON lines with the job's context (LOG_FORMAT=json) or readable text; noisy
rendering libraries at WARNING (core/logs.py builds the configuration)."""

from __future__ import annotations

from config.env import env_choice, env_str
from core.logs import logging_dict

# ---------------------------------------------------------------- logging
# JSON lines with job_id/tenant/attempt/stage on every line a job causes; `text` for people
# at a terminal (the default of `make run`). Celery uses the same configuration through
# its setup_logging signal (config/celery_app.py).
LOG_FORMAT = env_choice("LOG_FORMAT", "json", ("json", "text"))
LOG_LEVEL = env_str("LOG_LEVEL", "INFO") or "INFO"
LOGGING_CONFIG = "core.logs.configure"
LOGGING = logging_dict(fmt=LOG_FORMAT, level=LOG_LEVEL)
