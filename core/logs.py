"""Logging for web, worker and beat alike: JSON lines (LOG_FORMAT=json) or readable text
(LOG_FORMAT=text, `make run`), through structlog.

Every record, ours or a library's (Django, Celery, uvicorn), passes the same processors:
the context bound for the current job or request (job_id, tenant, attempt, stage,
request_id) is merged in, and secrets are scrubbed before anything is written.
"""

from __future__ import annotations

import logging.config
import re
from typing import Any

import structlog
from structlog.types import EventDict, Processor, WrappedLogger

# A download token in a query string (or DocRaptor's user_credentials, whatever its form),
# and an API key (`rk_<prefix>_<secret>`): the prefix names the key (it is shown in the
# admin), the secret never appears.
_QUERY_SECRET = re.compile(
    r"([?&](?:token|api_key|key|signature|user_credentials)=)[^&\s\"']+", re.IGNORECASE
)
_API_KEY = re.compile(r"\b(rk_[0-9a-f]{12})_[A-Za-z0-9_\-]{8,}")
_SECRET_FIELDS = {"token", "api_key", "authorization", "password", "secret", "x-api-key"}
# Celery names render messages `render-<job uuid>-<suffix>` (jobs.services.task_id_for).
_RENDER_TASK_ID = re.compile(
    r"render-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})-"
)
REDACTED = "[redacted]"


def tenant_log_bind(user: Any) -> None:
    """Jobs, templates and keys belong to a user: the user is the tenant. Its id, not its
    name, so logs carry no personal data."""
    structlog.contextvars.bind_contextvars(tenant=str(user.pk))


def redact(text: str) -> str:
    # Each pattern only where its literal part ("=", "rk_") occurs: a log line's strings
    # seldom hold either, and a search that cannot match costs a regex pass each.
    if "=" in text:
        text = _QUERY_SECRET.sub(r"\1" + REDACTED, text)
    if "rk_" in text:
        text = _API_KEY.sub(r"\1_" + REDACTED, text)
    return text


def _scrub(value: Any) -> Any:
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {
            key: REDACTED if str(key).lower() in _SECRET_FIELDS else _scrub(item)
            for key, item in value.items()
        }
    if isinstance(value, list | tuple):
        return [_scrub(item) for item in value]
    if value is None or isinstance(value, bool | int | float):
        return value
    # Objects (Django passes the request as `extra`) would be written as their repr, which
    # can hold a query string: scrub that text instead.
    return redact(repr(value))


def redact_secrets(logger: WrappedLogger, method: str, event_dict: EventDict) -> EventDict:
    scrubbed: EventDict = _scrub(event_dict)
    return scrubbed


def job_id_from_celery_message(
    logger: WrappedLogger, method: str, event_dict: EventDict
) -> EventDict:
    """The worker's main process logs `Task jobs.render_pdf[render-<job>-…] received`
    outside any task: name the job from the message id."""
    record = event_dict.get("_record")
    if record is not None and record.name.startswith("celery."):
        event_dict.pop("data", None)  # Celery's `extra`: the message's fields, said again
    if "job_id" not in event_dict and isinstance(event_dict.get("event"), str):
        match = _RENDER_TASK_ID.search(event_dict["event"])
        if match:
            event_dict["job_id"] = match.group(1)
    return event_dict


def uvicorn_access_fields(logger: WrappedLogger, method: str, event_dict: EventDict) -> EventDict:
    """uvicorn's access line as fields (client, method, path, status) a machine can filter."""
    record = event_dict.get("_record")
    args = event_dict.pop("positional_args", None)  # ProcessorFormatter(pass_foreign_args)
    event_dict.pop("color_message", None)  # uvicorn's ANSI-coloured copy of the message
    if record is not None and record.name == "uvicorn.access" and len(args or ()) == 5:
        client, http_method, path, _, status = args
        event_dict.update(client=client, method=http_method, path=redact(path), status=status)
    return event_dict


def _shared_processors() -> list[Processor]:
    return [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_logger_name,
        structlog.stdlib.add_log_level,
        structlog.stdlib.ExtraAdder(),
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        job_id_from_celery_message,
        uvicorn_access_fields,
    ]


def _formatter(fmt: str) -> dict[str, Any]:
    renderer: Processor
    if fmt == "text":
        renderer = structlog.dev.ConsoleRenderer(colors=False, pad_event_to=0)
        tail: list[Processor] = []
    else:
        renderer = structlog.processors.JSONRenderer()
        tail = [structlog.processors.format_exc_info]
    return {
        "()": structlog.stdlib.ProcessorFormatter,
        "foreign_pre_chain": _shared_processors(),
        "pass_foreign_args": True,
        "processors": [
            structlog.stdlib.ProcessorFormatter.remove_processors_meta,
            *tail,
            redact_secrets,
            renderer,
        ],
    }


def logging_dict(*, fmt: str, level: str) -> dict[str, Any]:
    """The LOGGING setting. uvicorn's loggers are named so Django's configuration (applied
    after uvicorn set up its own) sends them through the same formatter."""
    handler = {"class": "logging.StreamHandler", "formatter": "main"}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"main": _formatter(fmt)},
        "handlers": {"console": handler},
        "root": {"handlers": ["console"], "level": level},
        "loggers": {
            # No level: uvicorn's --log-level and --no-access-log keep deciding what it says.
            "uvicorn": {"handlers": ["console"], "propagate": False},
            "uvicorn.access": {"handlers": ["console"], "propagate": False},
            "xhtml2pdf": {"level": "WARNING"},
            "fontTools": {"level": "WARNING"},
            # pikepdf says at import that its C++ log bridge is up: nothing to act on.
            "pikepdf": {"level": "WARNING"},
        },
    }


def configure(logging_settings: dict[str, Any]) -> None:
    """Django's LOGGING_CONFIG callable, and Celery's setup_logging (config.celery_app)."""
    structlog.configure(
        processors=[
            *_shared_processors(),
            structlog.stdlib.ProcessorFormatter.wrap_for_formatter,
        ],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=True,
    )
    logging.config.dictConfig(logging_settings)
