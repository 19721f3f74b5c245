"""One resource a document asks for, fetched under the resource policy, or refused with
a reason. WeasyPrint's url_fetcher and Chromium's request interception both come here,
so the three renderers share one policy (xhtml2pdf's, which checks every redirect hop)."""

from __future__ import annotations

import urllib.parse
from dataclasses import dataclass
from pathlib import Path
from urllib.request import url2pathname

from xhtml2pdf.config.resources import ResourceAccessError, ResourceAccessPolicy
from xhtml2pdf.files import pisaFileObject

from rendering.resources import collect_warnings

ASSETS_DIR = (Path(__file__).parent / "assets").resolve()
_SCHEMES = frozenset({"data", "file", "http", "https"})


class ResourceRefused(Exception):
    """The policy refused a resource, or it could not be loaded; the message is for people."""


@dataclass(frozen=True)
class Fetched:
    body: bytes
    mime_type: str


def public_message(message: str) -> str:
    """A refusal as a person may read it: no server paths."""
    return message.replace(str(ASSETS_DIR), "the bundled assets")


def _shown(url: str) -> str:
    return url if len(url) <= 120 else f"{url[:117]}..."


def resource_fetch(url: str, policy: ResourceAccessPolicy) -> Fetched:
    """The bytes of `url` if the policy allows them; ResourceRefused otherwise. Checked
    before anything is opened, so a refused file is never read and a refused host never
    sees a connection."""
    parts = urllib.parse.urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in _SCHEMES:
        raise ResourceRefused(f"{_shown(url)} was refused: the scheme {scheme!r} is not allowed")
    try:
        if scheme == "file":
            policy.check_path(url2pathname(parts.path))
        else:
            policy.check_url(url)
    except ResourceAccessError as exc:
        raise ResourceRefused(public_message(f"{_shown(url)} was refused: {exc}")) from None
    # pisaFileObject logs a refused redirect hop instead of raising: its last warning says why.
    with collect_warnings() as warnings:
        try:
            source = pisaFileObject(url, basepath=None, policy=policy)
            body = source.getData()
            mime_type = source.getMimeType() or "application/octet-stream"
        except (ResourceAccessError, OSError, ValueError) as exc:
            message = f"{_shown(url)} could not be loaded: {exc}"
            raise ResourceRefused(public_message(message)) from None
    if body is None:
        reason = warnings[-1] if warnings else "nothing was returned"
        raise ResourceRefused(public_message(f"{_shown(url)} could not be loaded: {reason}"))
    return Fetched(body=body, mime_type=mime_type)
