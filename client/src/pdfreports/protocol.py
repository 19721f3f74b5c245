"""The service's HTTP contract, shared by the sync and async clients: paths, request
bodies and how answers turn into values or errors."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

import httpx

from pdfreports.errors import ApiError

API = "/api/v1"
API_KEY_HEADER = "X-API-Key"
USER_AGENT = "pdfreports-python/0.1"


def submit_path() -> str:
    return f"{API}/generate-pdf-async"


def job_path(job_id: str, suffix: str = "") -> str:
    return f"{API}/jobs/{quote(job_id, safe='')}{suffix}"


def run_path(run_id: str = "", suffix: str = "") -> str:
    return f"{API}/runs/{run_id}{suffix}" if run_id else f"{API}/runs"


def template_path(slug: str = "", suffix: str = "") -> str:
    return f"{API}/templates/{quote(slug, safe='')}{suffix}" if slug else f"{API}/templates"


def submit_body(
    *,
    template: str | None,
    html_template: str | None,
    data: dict[str, Any] | None,
    engine: str | None,
    options: dict[str, Any] | None,
    callback_url: str | None,
    renderer: str | None = None,
    cache: bool | None = None,
) -> dict[str, Any]:
    if (template is None) == (html_template is None):
        raise ValueError("give exactly one of template= (a stored slug) or html_template=")
    body: dict[str, Any] = {"data": data or {}}
    if template is not None:
        body["template"] = template
    if html_template is not None:
        body["html_template"] = html_template
    if engine:
        body["engine"] = engine
    if options:
        body["options"] = options
    if callback_url:
        body["callback_url"] = callback_url
    if renderer:
        body["renderer"] = renderer
    if cache is not None:
        body["cache"] = cache
    return body


def raise_for_error(response: httpx.Response) -> None:
    """Turn a 4xx/5xx answer into an ApiError carrying the service's own message."""
    if response.is_success:
        return
    body: Any = None
    message, code = response.reason_phrase or "error", ""
    try:
        body = response.json()
    except ValueError:
        text = response.text.strip()
        if text:
            message = text[:500]
    if isinstance(body, dict):
        message = str(body.get("error") or body.get("detail") or message)
        code = str(body.get("code") or "")
    raise ApiError(response.status_code, message, code, body)


_FILENAME_STAR = re.compile(r"filename\*\s*=\s*[^']*'[^']*'([^;]+)", re.IGNORECASE)
_FILENAME = re.compile(r'filename\s*=\s*"?([^";]+)"?', re.IGNORECASE)


def download_filename(response: httpx.Response, default: str) -> str:
    """The file name the service suggests (Content-Disposition), reduced to a base name."""
    header = response.headers.get("Content-Disposition", "")
    match = _FILENAME_STAR.search(header)
    name = unquote(match.group(1)) if match else ""
    if not name and (match := _FILENAME.search(header)):
        name = match.group(1)
    name = name.replace("\\", "/").rsplit("/", 1)[-1].strip()
    return name if name and name not in (".", "..") else default


def download_target(dest: Path, response: httpx.Response, job_id: str) -> Path:
    """`dest` itself, or the service's file name inside `dest` when it is a directory."""
    if dest.is_dir():
        return dest / download_filename(response, f"{job_id}.pdf")
    return dest


def content_length(response: httpx.Response) -> int | None:
    value = response.headers.get("Content-Length", "")
    return int(value) if value.isdigit() else None
