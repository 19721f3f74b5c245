"""Vega-Lite charts rendered server-side (vl-convert, no browser) and embedded as images.

Engines emit a placeholder `<img src="vega-lite:URL-ENCODED-SPEC">` (the `chart` helper);
after the template renders, each distinct spec becomes a PNG once and every placeholder a
data URI. Specs come from untrusted authors, so vl-convert may fetch nothing: data has to
be inline (`data.values`).
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import struct
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote

import vl_convert

from rendering.errors import LimitExceeded
from rendering.limits import DEFAULT_LIMITS, Limits

PREFIX = "vega-lite:"
_PLACEHOLDER = re.compile(r'src\s*=\s*"vega-lite:([^"]*)"', re.IGNORECASE)
_SCALE = 2  # pixels per CSS pixel: sharp when printed, ~40 ms a chart warm
_MAX_WIDTH_PX = 640.0  # 480 pt: wider would overflow an A4 portrait frame
_EMPTY_GIF = "data:image/gif;base64,R0lGODlhAQABAAAAACH5BAEKAAEALAAAAAABAAEAAAICTAEAOw=="

_cache: OrderedDict[str, tuple[str, float, float]] = OrderedDict()
_cache_lock = threading.Lock()


class ChartError(Exception):
    """A chart that cannot be drawn: dropped from the document and reported as a warning."""


def _png_size(png: bytes) -> tuple[int, int]:
    width, height = struct.unpack(">II", png[16:24])
    return width, height


def _has_url(value: Any) -> bool:
    if isinstance(value, dict):
        return any(k == "url" or _has_url(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_url(item) for item in value)
    return False


def chart_image(
    spec: dict[str, Any], *, cache_size: int = DEFAULT_LIMITS.chart_cache_size
) -> tuple[str, float, float]:
    """(PNG data URI, width, height) of a Vega-Lite spec, in CSS pixels (xhtml2pdf draws
    1 px as 0.75 pt, as a browser prints); cached by content hash."""
    if not isinstance(spec, dict):
        raise ChartError("a chart spec must be a JSON object")
    if _has_url(spec):
        raise ChartError("chart data must be inline (data.values); URLs are not fetched")
    canonical = json.dumps(spec, sort_keys=True, separators=(",", ":"))
    key = hashlib.sha256(canonical.encode()).hexdigest()
    with _cache_lock:
        if key in _cache:
            _cache.move_to_end(key)
            return _cache[key]
    try:
        png = vl_convert.vegalite_to_png(spec, scale=_SCALE, allowed_base_urls=[])
    except Exception as exc:  # vl-convert raises ValueError for any bad spec
        raise ChartError(str(exc).splitlines()[0][:200] if str(exc) else "invalid spec") from None
    width, height = (size / _SCALE for size in _png_size(png))
    if width > _MAX_WIDTH_PX:
        width, height = _MAX_WIDTH_PX, height * _MAX_WIDTH_PX / width
    image = (f"data:image/png;base64,{base64.b64encode(png).decode()}", width, height)
    with _cache_lock:
        _cache[key] = image
        while len(_cache) > cache_size:
            _cache.popitem(last=False)
    return image


def charts_embed(
    html: str,
    *,
    limits: Limits = DEFAULT_LIMITS,
    on_chart: Callable[[int, int], None] | None = None,
) -> tuple[str, list[str]]:
    """Replace every chart placeholder with its image; return (html, warnings)."""
    specs = list(dict.fromkeys(_PLACEHOLDER.findall(html)))
    if not specs:
        return html, []
    if len(specs) > limits.max_charts:
        raise LimitExceeded(
            f"The report has {len(specs)} distinct charts; the limit is {limits.max_charts}."
        )
    images: dict[str, str] = {}
    warnings: list[str] = []
    for done, encoded in enumerate(specs, start=1):
        try:
            spec = json.loads(unquote(encoded))
            uri, width, height = chart_image(spec, cache_size=limits.chart_cache_size)
            images[encoded] = f'src="{uri}" width="{width:.0f}" height="{height:.0f}"'
        except json.JSONDecodeError:
            warnings.append(f"Chart {done} dropped: its spec is not valid JSON.")
            images[encoded] = f'src="{_EMPTY_GIF}"'
        except ChartError as exc:
            warnings.append(f"Chart {done} dropped: {exc}.")
            images[encoded] = f'src="{_EMPTY_GIF}"'
        if on_chart is not None:
            on_chart(done, len(specs))
    return _PLACEHOLDER.sub(lambda m: images[m.group(1)], html), warnings
