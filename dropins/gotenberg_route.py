"""What every Gotenberg drop-in route shares: its view's parsers and throttle, its form
read only once the caller is authorized and the body's size checked, and its schema's
headers and tag."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.http import HttpResponse
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    inline_serializer,
)
from rest_framework import serializers
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request

from accounts.throttles import SubmitThrottle
from dropins.common import adapter_authorize, body_size_check
from dropins.views import DropInApi

# The headers Gotenberg's routes read (its output name, trace and webhook mode).
GOTENBERG_HEADERS = (
    "Gotenberg-Output-Filename",
    "Gotenberg-Trace",
    "Gotenberg-Webhook-Url",
    "Gotenberg-Webhook-Error-Url",
    "Gotenberg-Webhook-Method",
    "Gotenberg-Webhook-Error-Method",
    "Gotenberg-Webhook-Extra-Http-Headers",
)

Post = Callable[..., HttpResponse]
# The answer of a route in webhook mode (Gotenberg-Webhook-Url), in its schema.
WEBHOOK_ANSWER = {204: OpenApiResponse(description="Webhook mode: the PDF goes to the webhook.")}


# A Gotenberg route: a multipart form that submits a job (no docstring: drf-spectacular
# would publish it as every operation's description).
class GotenbergApi(DropInApi):
    parser_classes = [MultiPartParser, FormParser]
    throttle_classes = [SubmitThrottle]


@dataclass(frozen=True)
class GotenbergForm:
    # (form field, file base name, content) of every file, in the order sent.
    uploads: list[tuple[str, str, bytes]]
    fields: dict[str, str]


def gotenberg_form(request: Request) -> GotenbergForm:
    """The request's files and fields, read once the key is checked and before the
    multipart parser reads a body larger than allowed."""
    adapter_authorize(request)  # before anything of the body is read or parsed
    body_size_check(request)  # before the multipart parser reads the body
    uploads = [
        (field, str(upload.name).rsplit("/", 1)[-1], upload.read())
        for field, items in request.FILES.lists()
        for upload in items
    ]
    form = request.POST  # the multipart's fields, its files apart
    return GotenbergForm(uploads, {name: str(form.get(name, "")) for name in form})


def optional_text() -> serializers.CharField:
    """A text field of a Gotenberg form: it may be left out or sent empty, which the routes
    read as not sent (its default), as Gotenberg does."""
    return serializers.CharField(required=False, allow_blank=True)


def gotenberg_schema(
    *,
    operation_id: str,
    summary: str,
    form_name: str,
    form: dict[str, Any],
    responses: dict[Any, Any],
) -> Callable[[Post], Post]:
    """A route's OpenAPI operation: its multipart form, its answers, Gotenberg's headers."""
    decorator: Callable[[Post], Post] = extend_schema(
        operation_id=operation_id,
        summary=summary,
        request={"multipart/form-data": inline_serializer(form_name, form)},
        responses=responses,
        parameters=[
            OpenApiParameter(name, str, OpenApiParameter.HEADER) for name in GOTENBERG_HEADERS
        ],
        tags=["drop-in: Gotenberg"],
    )
    return decorator
