"""jsreport's POST /api/report (template by shortid, name or inline content; recipe
chrome-pdf) as a job, and its async mode (Prefer: respond-async, /reports/{id}/status)."""

from __future__ import annotations

import re
from typing import Any

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
)
from rest_framework.request import Request

from accounts.throttles import SubmitThrottle
from dropins.common import (
    PDF_ANSWER,
    adapter_authorize,
    adapter_submit,
    job_failure,
    job_wait,
    pdf_response,
    template_slug_visible,
)
from dropins.gotenberg_form import running_text
from dropins.views import DropInApi, DropInPdfApi
from jobs.api.access import job_for_request
from jobs.models import JobStatus, PdfJob
from rendering.errors import InvalidInput
from workspaces.permissions import Action

RECIPES = ("chrome-pdf",)
_ENGINE_NAMES = {"none": "raw"}  # jsreport's name for "no templating"
_PX = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*px\s*$")
_CHROME_REFUSED = ("scale", "width", "height", "pageRanges", "waitForNetworkIdle", "mediaType")


def _length(field: str, raw: Any) -> str:
    """A chrome margin as our options read it (px become mm; a bare number is px)."""
    text = str(raw).strip()
    if re.fullmatch(r"\d+(?:\.\d+)?", text):
        text += "px"
    if match := _PX.match(text):
        return f"{round(float(match.group(1)) * 25.4 / 96, 2):g}mm"
    if not re.fullmatch(r"\d+(?:\.\d+)?(mm|cm|in|pt)", text):
        raise InvalidInput(f"template.chrome.{field}: {raw!r} is not a length (px, mm, cm, in).")
    return text


def chrome_options(chrome: Any) -> dict[str, Any]:
    """template.chrome (the chrome-pdf recipe's settings) in our options' terms."""
    if chrome is None:
        return {}
    if not isinstance(chrome, dict):
        raise InvalidInput("template.chrome must be an object.")
    for name in _CHROME_REFUSED:
        if chrome.get(name) not in (None, "", 1, "1"):
            raise InvalidInput(f"template.chrome.{name} is not supported by this adapter.")
    options: dict[str, Any] = {}
    if chrome.get("format"):
        options["page_size"] = str(chrome["format"])  # checked by our options (A4, Letter…)
    if chrome.get("landscape") in (True, "true"):
        options["orientation"] = "landscape"
    sides = [chrome.get(f"margin{side}") for side in ("Top", "Right", "Bottom", "Left")]
    if any(side not in (None, "") for side in sides):
        options["margin"] = " ".join(
            _length(f"margin{name}", side or 0)
            for name, side in zip(("Top", "Right", "Bottom", "Left"), sides, strict=True)
        )
    if chrome.get("displayHeaderFooter") in (True, "true"):
        for part in ("header", "footer"):
            if chrome.get(f"{part}Template"):
                options[part] = running_text(str(chrome[f"{part}Template"]))
    return options


def _submit(request: Request) -> PdfJob:
    adapter_authorize(request)  # before the body is parsed or its header template read
    body: dict[str, Any] = request.data if isinstance(request.data, dict) else {}
    template = body.get("template")
    if not isinstance(template, dict):
        raise InvalidInput("Send {template: {shortid | name | content, engine, recipe}, data}.")
    recipe = template.get("recipe") or "chrome-pdf"
    if recipe not in RECIPES:
        raise InvalidInput(
            f"Unknown recipe {recipe!r}; this service supports: {', '.join(RECIPES)}."
        )
    engine = template.get("engine")
    engine = _ENGINE_NAMES.get(engine, engine) if isinstance(engine, str) else None
    options = chrome_options(template.get("chrome"))
    sent = body.get("options")
    report: dict[str, Any] = sent if isinstance(sent, dict) else {}
    if isinstance(report.get("reportName"), str) and report["reportName"].strip():
        options["filename"] = report["reportName"]
    fields: dict[str, Any] = {"data": body.get("data"), "options": options}
    if template.get("shortid") or template.get("name"):
        # A stored template keeps its own engine and renderer; the engine sent must match.
        fields["template_slug"] = template_slug_visible(
            request, slug=str(template.get("shortid") or ""), name=str(template.get("name") or "")
        )
        fields["engine"] = engine if template.get("engine") else None
    else:
        if not isinstance(template.get("content"), str) or not template["content"]:
            raise InvalidInput("template needs shortid, name or content.")
        fields |= {
            "html_template": template["content"],
            "engine": engine or "handlebars",
            "renderer": "chromium",  # the chrome-pdf recipe
            "helpers": template.get("helpers") or "",
        }
    return adapter_submit(request, **fields)


# jsreport's clients send the key as a basic-auth password or a bearer token (DropInApi's).
@extend_schema(tags=["drop-in: jsreport"])
class JsreportApi(DropInApi):
    pass


def _located(
    text: str, *, status: int, location: str, headers: dict[str, str] | None = None
) -> HttpResponse:
    """jsreport's plain-text answer that points on (Location) to the next URL."""
    headers = {"Location": location, **(headers or {})}
    return HttpResponse(text, status=status, content_type="text/plain", headers=headers)


class JsreportReportApi(JsreportApi):
    throttle_classes = [SubmitThrottle]

    @extend_schema(
        operation_id="jsreport_report",
        summary="jsreport drop-in: render a report (the PDF, or 202 with Prefer: respond-async)",
        request=OpenApiTypes.OBJECT,
        responses={
            **PDF_ANSWER,
            (202, "text/plain"): OpenApiResponse(
                OpenApiTypes.STR, description="Async: Location names the status URL."
            ),
        },
        parameters=[OpenApiParameter("Prefer", str, OpenApiParameter.HEADER)],
    )
    def post(self, request: Request) -> HttpResponse:
        job = _submit(request)
        if "respond-async" in request.headers.get("Prefer", "").lower():
            return _located(
                "Async rendering in progress. Use Location response header to check the "
                "current status.",
                status=202,
                location=request.build_absolute_uri(f"/jsreport/reports/{job.job_id}/status"),
                headers={"X-Job-Id": str(job.job_id)},
            )
        job = job_wait(request, job)
        return pdf_response(job, headers={"X-Job-Id": str(job.job_id)})


class JsreportStatusApi(JsreportApi):
    @extend_schema(
        operation_id="jsreport_report_status",
        summary="jsreport drop-in: an async report's status (201 and Location once done)",
        responses={
            (200, "text/plain"): OpenApiResponse(OpenApiTypes.STR, description="Still rendering."),
            (201, "text/plain"): OpenApiResponse(
                OpenApiTypes.STR, description="Done: Location names the content URL."
            ),
        },
    )
    def get(self, request: Request, report_id: str) -> HttpResponse:
        job = job_for_request(request, report_id, Action.JOB_VIEW)
        if job.status == JobStatus.COMPLETED:
            return _located(
                "Report is ready, check Location header for download",
                status=201,
                location=request.build_absolute_uri(f"/jsreport/reports/{job.job_id}/content"),
            )
        if job.is_terminal:
            raise job_failure(job)
        return HttpResponse("Report is pending", content_type="text/plain")


@extend_schema_view(
    get=extend_schema(
        operation_id="jsreport_report_content", summary="jsreport drop-in: an async report's PDF"
    )
)
class JsreportContentApi(JsreportApi, DropInPdfApi):
    id_kwarg = "report_id"
