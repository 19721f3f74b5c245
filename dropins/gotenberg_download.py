"""Gotenberg's `downloadFrom` form field: files fetched from URLs before the work starts,
as if they had been uploaded. Each entry is `{"url": …, "extraHttpHeaders": {…}}`; the
file takes its name from the answer's Content-Disposition (as Gotenberg asks of the
server), else from the URL's last path segment. Fetched in the web process under the
outbound rules of the /url route (dropins.common.remote_get: no internal address unless
CALLBACK_ALLOW_PRIVATE_NETWORKS, no redirects), all of a request's within one deadline
(CALLBACK_TIMEOUT_SECONDS: twenty slow servers cannot hold a web thread twenty times as
long), and counted against the request body's limit (REQUEST_MAX_BODY_BYTES) with the
files uploaded beside them."""

from __future__ import annotations

import json
import posixpath
import re
import time
from email.message import Message
from typing import Any
from urllib.parse import unquote, urlsplit

from django.conf import settings

from dropins.common import remote_get
from rendering.error_codes import ErrorCode
from rendering.errors import ApplicationError, InvalidInput
from rendering.limits import size_text
from rendering.pdf_files import MAX_PDF_FILES

# Where an entry's `field` may send its file: Gotenberg's stamp and watermark files.
_FIELDS = ("", "files", "stamp", "watermark")
_ENTRY_KEYS = {"url", "extraHttpHeaders", "embedded", "field"}
_HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$")
# Headers that would change the exchange itself rather than what the server is told:
# the connection goes to the checked address with the URL's own Host.
_HEADERS_REFUSED = {"host", "content-length", "transfer-encoding", "connection", "upgrade", "te"}
_MAX_HEADERS = 20
_MAX_HEADER_VALUE = 4096
_SAFE_NAME = re.compile(r"[^A-Za-z0-9._ ()-]")


def _entries(raw: str) -> list[dict[str, Any]]:
    try:
        entries = json.loads(raw)
    except ValueError:
        entries = None
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise InvalidInput(
            'downloadFrom must be a JSON list such as [{"url": "https://…/a.pdf", '
            '"extraHttpHeaders": {"Authorization": "Bearer …"}}].'
        )
    if len(entries) > MAX_PDF_FILES:
        raise InvalidInput(f"downloadFrom lists {len(entries)} URLs; at most {MAX_PDF_FILES}.")
    return entries


def _headers(index: int, raw: Any) -> dict[str, str]:
    if raw is None:
        return {}
    where = f"downloadFrom[{index}].extraHttpHeaders"
    if not isinstance(raw, dict) or len(raw) > _MAX_HEADERS:
        raise InvalidInput(f"{where} must be an object of at most {_MAX_HEADERS} headers.")
    headers = {}
    for name, value in raw.items():
        if not _HEADER_NAME.match(name) or not isinstance(value, str):
            raise InvalidInput(f"{where}: {name[:100]!r} must be a header name with a text value.")
        if name.lower() in _HEADERS_REFUSED:
            raise InvalidInput(f"{where}: {name} cannot be set.")
        if len(value) > _MAX_HEADER_VALUE or re.search(r"[\x00-\x1f\x7f]", value.replace("\t", "")):
            raise InvalidInput(
                f"{where}: the value of {name} is too long or has control characters."
            )
        headers[name] = value
    return headers


def _field(index: int, entry: dict[str, Any]) -> str:
    if unknown := sorted(set(entry) - _ENTRY_KEYS):
        raise InvalidInput(f"downloadFrom[{index}]: unknown key(s) {', '.join(unknown)}.")
    field = entry.get("field") or ""
    if entry.get("embedded") not in (None, False) or field == "embedded":
        raise InvalidInput(
            f"downloadFrom[{index}]: embedded files are not supported by this adapter."
        )
    if field not in _FIELDS:
        raise InvalidInput(f"downloadFrom[{index}].field must be stamp or watermark.")
    return field or "files"


def file_name(url: str, content_disposition: str) -> str:
    """The downloaded file's name: Content-Disposition's filename (filename* too), else
    the URL's last path segment; only its last part, in safe characters."""
    message = Message()
    message["content-disposition"] = content_disposition
    name = (message.get_filename() or "") if content_disposition else ""
    if not name:
        name = unquote(posixpath.basename(urlsplit(url).path))
    name = _SAFE_NAME.sub("_", name.replace("\\", "/").rsplit("/", 1)[-1]).strip(" .")
    return name[:100]


def downloads(raw: str, *, uploaded_bytes: int) -> list[tuple[str, str, bytes]]:
    """(form field, file name, bytes) of each file `downloadFrom` lists, fetched in
    order; InvalidInput naming the entry for a bad entry, a refused or failed fetch, or a
    file without a name. Together with the `uploaded_bytes` already sent they may weigh
    REQUEST_MAX_BODY_BYTES at most (a 413 past it)."""
    if raw.strip() in ("", "[]"):
        return []
    entries = _entries(raw)
    limit = settings.REQUEST_MAX_BODY_BYTES
    files: list[tuple[str, str, bytes]] = []
    total = uploaded_bytes
    ends = time.monotonic() + settings.CALLBACK_TIMEOUT_SECONDS
    for index, entry in enumerate(entries):
        url = entry.get("url")
        if not isinstance(url, str) or not url.strip():
            raise InvalidInput(f"downloadFrom[{index}].url must be the file's http(s) URL.")
        url = url.strip()
        field = _field(index, entry)
        headers = _headers(index, entry.get("extraHttpHeaders"))
        if total >= limit:
            raise _too_large(limit)
        left = ends - time.monotonic()
        if left <= 0:
            raise InvalidInput(
                f"downloadFrom: the files took longer than the "
                f"{settings.CALLBACK_TIMEOUT_SECONDS} s they may take together."
            )
        fetched = remote_get(
            url,
            field=f"downloadFrom[{index}].url",
            max_bytes=limit - total,
            limit_name="what is left of REQUEST_MAX_BODY_BYTES",
            accept="*/*",
            extra_headers=headers,
            deadline_seconds=left,
        )
        name = file_name(url, fetched.headers.get("content-disposition", ""))
        if not name:
            raise InvalidInput(
                f"{url} gave no file name: answer with a Content-Disposition header naming "
                "the file (filename=…), or end the URL with the file's name."
            )
        total += len(fetched.body)
        files.append((field, name, fetched.body))
    return files


def _too_large(limit: int) -> ApplicationError:
    return ApplicationError(
        f"The uploaded and downloaded files weigh more than REQUEST_MAX_BODY_BYTES "
        f"({size_text(limit)}).",
        code=ErrorCode.TOO_LARGE,
        http_status=413,
    )
