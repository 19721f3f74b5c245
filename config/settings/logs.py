"""Logging: one plain console format; noisy rendering libraries at WARNING."""

from __future__ import annotations

from config.env import env_str

# ---------------------------------------------------------------- logging
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {"xhtml2pdf": {"level": "WARNING"}, "fontTools": {"level": "WARNING"}},
}
