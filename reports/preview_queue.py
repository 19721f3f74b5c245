"""Template previews and thumbnails, rendered on the `previews` worker queue.

The web process checks the data (cheap, linear), sends the render to a worker of the
previews queue and waits for the PNG on a Redis list for at most PDF_PREVIEW_WAIT_SECONDS.
A template that lays out slowly or asks for a giant page therefore costs a preview
worker at most its time limit, never a web process; the message expires if no worker
took it in time, so nobody renders a preview that nobody waits for. A tenant has at most
PREVIEW_MAX_IN_FLIGHT_PER_TENANT renders waiting or running at once (a Redis lease each),
so one user asking for a hundred thumbnails cannot fill the queue for everyone else.
"""

from __future__ import annotations

import base64
import json
import logging
import uuid
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import redis
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from kombu.exceptions import OperationalError
from redis.exceptions import RedisError

from core.celery import app
from core.error_registry import error_code
from core.errors import LimitReached
from core.leases import lease_release, lease_take
from core.redis import redis_client
from rendering.data_stack import on_a_chunk_of_its_own
from rendering.error_codes import ErrorCode
from rendering.errors import ApplicationError, RenderError
from rendering.options import parse_options
from rendering.renderers import DEFAULT_RENDERER
from reports.error_codes import TemplateErrorCode
from reports.preview import preview_data_check, template_preview_pngs

logger = logging.getLogger(__name__)
PREVIEW_TASK = "jobs.render_preview"
PREVIEW_QUEUE = "previews"


class PreviewTimeout(ApplicationError):
    http_status = 503
    code = TemplateErrorCode.PREVIEW_TIMEOUT


class PreviewsBusy(LimitReached):
    """429: the tenant already has its share of the previews queue."""

    code = TemplateErrorCode.PREVIEWS_BUSY
    limit = "PREVIEW_MAX_IN_FLIGHT_PER_TENANT"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.retry_after = settings.PDF_PREVIEW_WAIT_SECONDS


def _redis() -> redis.Redis:
    # The read timeout must outlast the blocking wait for the answer.
    return redis_client(timeout=settings.PDF_PREVIEW_WAIT_SECONDS + 5)


def previews_redis() -> redis.Redis:
    """The Redis the previews answer on; the diff keeps its page images there too."""
    return _redis()


@dataclass(frozen=True)
class PreviewWork:
    """What a preview renders; sent to the preview worker as its fields (JSON)."""

    engine: str
    source: str
    css: str
    data: Any  # checked against the schema by preview_request before it is sent
    options: dict[str, Any]
    width: int
    renderer: str = DEFAULT_RENDERER
    helpers: str = ""
    pages: int = 1  # the first N pages (the studio, the diff); a preview or thumbnail: 1
    # The templates it includes, slug -> source (reports.partials.template_partials_sources).
    partials: dict[str, str] = field(default_factory=dict)

    def pngs(self) -> list[bytes]:
        return template_preview_pngs(
            engine=self.engine,
            source=self.source,
            css=self.css,
            data=self.data,
            schema={},  # checked by the web process before sending
            options=parse_options(self.options),
            width=self.width,
            renderer=self.renderer,
            helpers=self.helpers,
            pages=self.pages,
            partials=self.partials,
        )


def preview_request(work: PreviewWork, *, schema: dict[str, Any], tenant_id: int) -> bytes:
    """The PNG of the template's first page; see preview_request_pages."""
    return preview_request_pages(replace(work, pages=1), schema=schema, tenant_id=tenant_id)[0]


def preview_request_pages(
    work: PreviewWork, *, schema: dict[str, Any], tenant_id: int
) -> list[bytes]:
    """PNGs of the template's first `work.pages` pages; RenderError for bad data or a
    template problem, PreviewTimeout if no worker answered within PDF_PREVIEW_WAIT_SECONDS,
    PreviewsBusy (429) while `tenant_id` has PREVIEW_MAX_IN_FLIGHT_PER_TENANT waiting."""
    work = replace(work, data=preview_data_check(data=work.data, schema=schema))
    if settings.PDF_PREVIEW_IN_PROCESS:  # unit tests: no worker runs
        return work.pngs()
    wait = settings.PDF_PREVIEW_WAIT_SECONDS
    lease = f"previews:tenant:{tenant_id}"
    # Held past the wait for as long as a worker that took the message late may render.
    token = lease_take(
        name=lease,
        limit=settings.PREVIEW_MAX_IN_FLIGHT_PER_TENANT,
        seconds=wait + settings.PDF_PREVIEW_MAX_SECONDS + 5,
    )
    if token is None:
        raise PreviewsBusy(
            f"You already have {settings.PREVIEW_MAX_IN_FLIGHT_PER_TENANT} previews rendering "
            "(PREVIEW_MAX_IN_FLIGHT_PER_TENANT); try again when they are done."
        )
    try:
        png = _preview_send_and_wait(work, wait=wait)
    except PreviewTimeout:
        raise  # the render may still run on a worker: its lease runs out by itself
    except BaseException:
        lease_release(name=lease, token=token)  # the worker answered (with an error)
        raise
    lease_release(name=lease, token=token)
    return png


def _preview_send_and_wait(work: PreviewWork, *, wait: int) -> list[bytes]:
    reply_key = f"{settings.LIMITS_KEY_PREFIX}:preview:{uuid.uuid4().hex}"
    try:
        app.send_task(
            PREVIEW_TASK,
            kwargs={"work": asdict(work), "reply_key": reply_key},
            queue=PREVIEW_QUEUE,
            expires=wait,
        )
        answer = _redis().blpop([reply_key], timeout=wait)
    except (RedisError, OperationalError, OSError):
        logger.warning("preview not rendered: the broker or Redis is unavailable", exc_info=True)
        raise PreviewTimeout("Previews are unavailable for a moment; try again.") from None
    if answer is None:
        raise PreviewTimeout(
            f"The preview did not finish within {wait} s (PDF_PREVIEW_WAIT_SECONDS); "
            "the preview workers are busy or the template is slow to lay out."
        )
    reply = json.loads(answer[1])
    if reply["ok"]:
        return [base64.b64decode(png) for png in reply["pngs"]]
    # The worker's error kind (template_syntax, limit_exceeded…), answered as it would be.
    raise RenderError(
        reply["message"],
        code=error_code(reply["code"]) or ErrorCode.RENDER_ERROR,
        http_status=reply["status"],
        line=reply.get("line"),
    )


def preview_render_and_reply(*, reply_key: str, work: dict[str, Any]) -> None:
    """The worker's side: render under the preview time limit, push the answer."""
    try:
        # Under Celery's frames, as a job's render (rendering.data_stack says why).
        pngs = on_a_chunk_of_its_own(PreviewWork(**work).pngs)
        reply: dict[str, Any] = {"ok": True, "pngs": [base64.b64encode(p).decode() for p in pngs]}
    except ApplicationError as exc:
        reply = {
            "ok": False,
            "code": exc.code,
            "status": exc.http_status,
            "message": exc.message,
            "line": exc.line,
        }
    except SoftTimeLimitExceeded:
        reply = {
            "ok": False,
            "code": ErrorCode.LIMIT_EXCEEDED,
            "status": 400,
            "message": "The preview took longer than its time limit to render.",
        }
    connection = _redis()
    connection.rpush(reply_key, json.dumps(reply))
    connection.expire(reply_key, 60)  # nobody reads it if the web gave up waiting
