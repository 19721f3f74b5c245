"""Gotenberg's Chromium routes (/forms/chromium/convert/html, /url, /markdown) as jobs:
the multipart form becomes a submit, the answer is the PDF once the job finished."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from django.http import HttpResponse
from rest_framework import serializers
from rest_framework.request import Request

from dropins.common import (
    PDF_ANSWER,
    adapter_submit,
    job_wait,
    page_fetch,
    pdf_response,
    warnings_header,
)
from dropins.gotenberg_form import (
    SPECIAL_FILES,
    assets_inline,
    form_options,
    form_warnings,
    markdown_inline,
    running_text,
)
from dropins.gotenberg_route import (
    WEBHOOK_ANSWER,
    GotenbergApi,
    Post,
    gotenberg_form,
    gotenberg_schema,
    optional_text,
)
from jobs.callbacks import callback_url_check
from jobs.models import PdfJob
from jobs.result_webhook import headers_seal
from rendering.errors import InvalidInput
from reports.limits import limits_from_settings

_FILENAME = re.compile(r"[^A-Za-z0-9._ -]+")


def _schema(route: str, fields: dict[str, Any]) -> Callable[[Post], Post]:
    # The page and PDF fields are made here, after the route's own: a serializer lists its
    # fields in the order they were made, and the route's source comes first.
    form = {
        "paperWidth": optional_text(),
        "paperHeight": optional_text(),
        "marginTop": optional_text(),
        "marginBottom": optional_text(),
        "marginLeft": optional_text(),
        "marginRight": optional_text(),
        "landscape": serializers.BooleanField(required=False),
        "printBackground": serializers.BooleanField(required=False),
        **pdf_output_form(),
        **fields,
    }
    return gotenberg_schema(
        operation_id=f"gotenberg_convert_{route}",
        summary=f"Gotenberg drop-in: Chromium {route} to PDF (waits for the job)",
        form_name=f"Gotenberg{route.title()}Form",
        form=form,
        responses={**PDF_ANSWER, **WEBHOOK_ANSWER},
    )


_FILES = serializers.ListField(child=serializers.FileField(), required=False)


class _ChromiumApi(GotenbergApi):
    def page(self, request: Request, uploads: dict[str, bytes], fields: dict[str, str]) -> str:
        raise NotImplementedError

    def post(self, request: Request) -> HttpResponse:
        form = gotenberg_form(request)
        uploads = {name: content for _field, name, content in form.uploads}
        fields = form.fields
        webhook = webhook_fields(request.headers)
        source = self.page(request, uploads, fields)
        assets = {name: data for name, data in uploads.items() if name not in SPECIAL_FILES}
        options, renderer = form_options(fields)
        for part in ("header", "footer"):
            if f"{part}.html" in uploads:
                options[part] = running_text(uploads[f"{part}.html"].decode("utf-8", "replace"))
        if wanted := output_filename(request):
            options["filename"] = wanted
        trace = trace_of(request)
        job = adapter_submit(
            request,
            **webhook_submit(webhook, trace),
            html_template=assets_inline(
                source, assets, max_bytes=limits_from_settings().max_template_bytes
            ),
            engine="raw",  # Gotenberg's HTML is a finished page, not a template
            data={},
            options=options,
            renderer=renderer or "chromium",
            idempotency_key=request.headers.get("Idempotency-Key", "").strip(),
            warnings=form_warnings(fields),
        )
        return gotenberg_answer(request, job, trace=trace, webhook=webhook is not None)


def output_filename(request: Request) -> str:
    """Gotenberg-Output-Filename, made safe for a download name ("" when not sent)."""
    return _FILENAME.sub("-", request.headers.get("Gotenberg-Output-Filename", "")).strip()


def trace_of(request: Request) -> str:
    return request.headers.get("Gotenberg-Trace", "").strip()[:200]


def gotenberg_answer(request: Request, job: PdfJob, *, trace: str, webhook: bool) -> HttpResponse:
    """Gotenberg's answer to a submitted job: in webhook mode a 204 at once (the PDF goes
    to the webhook), else the PDF once the job finished, with its trace and job id."""
    headers = {"Gotenberg-Trace": trace or str(job.job_id), "X-Job-Id": str(job.job_id)}
    if webhook:
        return HttpResponse(status=204, headers=headers | warnings_header(job.warnings))
    job = job_wait(request, job)
    return pdf_response(job, headers=headers | warnings_header(job.warnings))


_METHODS = ("POST", "PUT", "PATCH")
_UNSENDABLE = {"host", "content-length", "content-type", "transfer-encoding", "connection"}


def webhook_fields(headers: Any) -> tuple[str, dict[str, Any]] | None:
    """Gotenberg's async mode from its headers: (the job's callback_url, ResultWebhook's
    fields), or None when no Gotenberg-Webhook-Url was sent."""
    url = headers.get("Gotenberg-Webhook-Url", "").strip()
    error_url = headers.get("Gotenberg-Webhook-Error-Url", "").strip()
    if not url and not error_url:
        return None
    if not url or not error_url:
        raise InvalidInput(
            "Send both Gotenberg-Webhook-Url and Gotenberg-Webhook-Error-Url, or neither."
        )
    for name, value in (("Gotenberg-Webhook-Url", url), ("Gotenberg-Webhook-Error-Url", error_url)):
        if problem := callback_url_check(value, resolve=False):
            raise InvalidInput(f"{name}: {problem.replace('callback_url ', '')}")
    methods = []
    for name in ("Gotenberg-Webhook-Method", "Gotenberg-Webhook-Error-Method"):
        method = headers.get(name, "POST").strip().upper() or "POST"
        if method not in _METHODS:
            raise InvalidInput(f"{name} must be one of: {', '.join(_METHODS)}.")
        methods.append(method)
    extra = _extra_headers(headers.get("Gotenberg-Webhook-Extra-Http-Headers", ""))
    return url, {
        "error_url": error_url,
        "method": methods[0],
        "error_method": methods[1],
        "sealed_headers": headers_seal(extra),
    }


def webhook_submit(webhook: tuple[str, dict[str, Any]] | None, trace: str) -> dict[str, Any]:
    """adapter_submit's callback_url and result_webhook for a Gotenberg request: none
    without webhook headers; with them, the webhook (webhook_fields) and the request's trace."""
    if webhook is None:
        return {"result_webhook": None, "callback_url": ""}
    return {"result_webhook": {**webhook[1], "trace": trace}, "callback_url": webhook[0]}


def pdf_output_form() -> dict[str, serializers.Field[Any, Any, Any, Any]]:
    """The PDF fields every Gotenberg conversion route takes (PDF/A, PDF/UA, metadata), in
    Gotenberg's order; new fields on each call, as a field belongs to one serializer."""
    return {
        "pdfa": optional_text(),
        "pdfua": serializers.BooleanField(required=False),
        "metadata": optional_text(),
    }


def _extra_headers(raw: str) -> dict[str, str]:
    if not raw.strip():
        return {}
    try:
        extra = json.loads(raw)
    except ValueError:
        extra = None
    if not isinstance(extra, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in extra.items()
    ):
        raise InvalidInput(
            "Gotenberg-Webhook-Extra-Http-Headers must be a JSON object of strings, e.g. "
            '{"Authorization": "Bearer …"}.'
        )
    if refused := sorted(name for name in extra if name.lower() in _UNSENDABLE):
        raise InvalidInput(
            f"Gotenberg-Webhook-Extra-Http-Headers may not set {', '.join(refused)}."
        )
    return extra


def _index(uploads: dict[str, bytes]) -> str:
    if "index.html" not in uploads:
        raise InvalidInput("Upload the page as a file named index.html (form field files).")
    return uploads["index.html"].decode("utf-8", errors="replace")


class GotenbergHtmlApi(_ChromiumApi):
    @_schema("html", {"files": _FILES})
    def post(self, request: Request) -> HttpResponse:
        """index.html (and its assets, header.html, footer.html) to PDF."""
        return super().post(request)

    def page(self, request: Request, uploads: dict[str, bytes], fields: dict[str, str]) -> str:
        return _index(uploads)


class GotenbergMarkdownApi(_ChromiumApi):
    @_schema("markdown", {"files": _FILES})
    def post(self, request: Request) -> HttpResponse:
        """index.html whose {{ toHTML "file.md" }} take the uploaded Markdown files."""
        return super().post(request)

    def page(self, request: Request, uploads: dict[str, bytes], fields: dict[str, str]) -> str:
        return markdown_inline(_index(uploads), uploads)


class GotenbergUrlApi(_ChromiumApi):
    @_schema("url", {"url": serializers.URLField()})
    def post(self, request: Request) -> HttpResponse:
        """The page at `url` to PDF, fetched under our outbound rules."""
        return super().post(request)

    def page(self, request: Request, uploads: dict[str, bytes], fields: dict[str, str]) -> str:
        return page_fetch(fields.get("url", "").strip())
