"""The operations both clients make, each as the request to send and how its answer becomes
a value: written once, sent by `Client` (blocking) and `AsyncClient` (awaited)."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypedDict, TypeVar

import httpx

from pdfreports import protocol
from pdfreports.models import JobState, Template

T = TypeVar("T")


class SubmitFields(TypedDict, total=False):
    """A submit's keyword arguments besides `template` (see `pdfreports.Client.submit`)."""

    html_template: str | None
    data: dict[str, Any] | None
    engine: str | None
    options: dict[str, Any] | None
    callback_url: str | None
    idempotency_key: str | None
    renderer: str | None
    cache: bool | None


@dataclass(frozen=True)
class Call(Generic[T]):
    """One request: `request` holds httpx's `build_request` arguments (json, params,
    headers); `idempotent` tells the retry policy whether sending it twice is safe."""

    method: str
    url: str
    parse: Callable[[httpx.Response], T]
    idempotent: bool = True
    request: dict[str, Any] = field(default_factory=dict)


def _job(response: httpx.Response) -> JobState:
    return JobState.from_json(response.json())


def _template(response: httpx.Response) -> Template:
    return Template.from_json(response.json())


def job_submit(template: str | None, fields: SubmitFields) -> Call[str]:
    """Every submit carries an Idempotency-Key (a new one unless given), so the retries
    a client makes never create a second job. TypeError for a keyword submit does not
    take, as a misspelt argument of a plain signature would raise."""
    unknown = sorted(set(fields) - set(SubmitFields.__annotations__))
    if unknown:
        raise TypeError(f"submit() got unexpected keyword arguments: {', '.join(unknown)}")
    body = protocol.submit_body(
        template=template,
        html_template=fields.get("html_template"),
        data=fields.get("data"),
        engine=fields.get("engine"),
        options=fields.get("options"),
        callback_url=fields.get("callback_url"),
        renderer=fields.get("renderer"),
        cache=fields.get("cache"),
    )
    key = fields.get("idempotency_key") or str(uuid.uuid4())
    return Call(
        "POST",
        protocol.submit_path(),
        lambda response: str(response.json()["job_id"]),
        request={"json": body, "headers": {"Idempotency-Key": key}},
    )


def job_get(job_id: str) -> Call[JobState]:
    return Call("GET", protocol.job_path(job_id), _job)


def jobs_list(*, status: str | None, limit: int) -> Call[list[JobState]]:
    params: dict[str, Any] = {"limit": limit} | ({"status": status} if status else {})
    return Call(
        "GET",
        f"{protocol.API}/jobs",
        lambda response: [JobState.from_json(item) for item in response.json()["results"]],
        request={"params": params},
    )


def job_cancel(job_id: str) -> Call[JobState]:
    return Call("POST", protocol.job_path(job_id, "/cancel"), _job, idempotent=False)


def templates_list(*, include_archived: bool) -> Call[list[Template]]:
    return Call(
        "GET",
        protocol.template_path(),
        lambda response: [Template.from_json(item) for item in response.json()],
        request={"params": {"archived": "true"} if include_archived else {}},
    )


def template_get(slug: str) -> Call[Template]:
    return Call("GET", protocol.template_path(slug), _template)


def template_create(slug: str, fields: dict[str, Any]) -> Call[Template]:
    """A new template (published as version 1), named after its slug unless `name`."""
    body = {"slug": slug, "name": fields.pop("name", None) or slug, **fields}
    return Call("POST", protocol.template_path(), _template, False, {"json": body})


def template_update(slug: str, fields: dict[str, Any]) -> Call[Template]:
    return Call("PATCH", protocol.template_path(slug), _template, request={"json": fields})


def template_preview(
    slug: str,
    *,
    data: dict[str, Any] | None,
    options: dict[str, Any] | None,
    width: int | None,
    version: str | None = None,
) -> Call[bytes]:
    body: dict[str, Any] = {"options": options or {}}
    if version is not None:
        body["version"] = version
    if data is not None:
        body["data"] = data
    if width is not None:
        body["width"] = width
    path = protocol.template_path(slug, "/preview")
    return Call("POST", path, lambda response: response.content, request={"json": body})
