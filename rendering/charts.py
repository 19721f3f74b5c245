"""Vega-Lite charts rendered server-side (vl-convert, no browser) and embedded as images.

Engines emit a placeholder `<img src="vega-lite:URL-ENCODED-SPEC">` (the `chart` helper);
after the template renders, each distinct spec becomes an image once (SVG for renderers
that draw it, else PNG), written once into the document, and every placeholder a small tag
that shows it. Specs come from untrusted authors, so vl-convert may fetch nothing: data has to
be inline (`data.values`).
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import threading
from collections import Counter, OrderedDict
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote

import vl_convert

from rendering.errors import LimitExceeded
from rendering.limits import DEFAULT_LIMITS, Limits, size_text

PREFIX = "vega-lite:"
_PLACEHOLDER = re.compile(r'src\s*=\s*"vega-lite:([^"]*)"', re.IGNORECASE)
_SCALE = 2  # pixels per CSS pixel: sharp when printed, ~40 ms a chart warm
_MAX_WIDTH_PX = 640.0  # 480 pt: wider would overflow an A4 portrait frame
_EMPTY_GIF = "data:image/gif;base64,R0lGODlhAQABAAAAACH5BAEKAAEALAAAAAABAAEAAAICTAEAOw=="
# Marks the <img> of a chart (its value: which image) and the <style> block of the images.
_SHARED_ATTRIBUTE = "data-chart-image"

_SVG_SIZE = re.compile(r'<svg[^>]*?\swidth="([\d.]+)"[^>]*?\sheight="([\d.]+)"')

# Least recently used first; bounded by the bytes of the data URIs it holds.
_cache: OrderedDict[str, tuple[str, float, float]] = OrderedDict()
_cache_bytes = 0
_cache_lock = threading.Lock()


class ChartError(Exception):
    """A chart that cannot be drawn: dropped from the document and reported as a warning."""


def _has_url(value: Any) -> bool:
    if isinstance(value, dict):
        return any(k == "url" or _has_url(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_url(item) for item in value)
    return False


def _data_rows(value: Any) -> int:
    """Rows of inline data a spec carries or generates (`values`, `datasets`, `sequence`)."""
    rows = 0
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            for key, child in item.items():
                if key in ("values", "datasets"):
                    rows += _list_lengths(child)
                elif key == "sequence" and isinstance(child, dict):
                    rows += _sequence_length(child)
                else:
                    stack.append(child)
        elif isinstance(item, list):
            stack.extend(item)
    return rows


def _list_lengths(value: Any) -> int:
    if isinstance(value, list):
        return len(value)
    if isinstance(value, dict):
        return sum(_list_lengths(child) for child in value.values())
    return 0


def _sequence_length(sequence: dict[str, Any]) -> int:
    try:
        start, stop = float(sequence.get("start", 0)), float(sequence["stop"])
        step = float(sequence.get("step", 1)) or 1.0
        return max(0, int((stop - start) / step))
    except (KeyError, TypeError, ValueError, OverflowError):
        return 0


def _check_spec(spec: Any, limits: Limits) -> None:
    if not isinstance(spec, dict):
        raise ChartError("a chart spec must be a JSON object")
    if _has_url(spec):
        raise ChartError("chart data must be inline (data.values); URLs are not fetched")
    rows = _data_rows(spec)
    if rows > limits.chart_max_rows:
        raise ChartError(f"it has {rows} data rows; the limit is {limits.chart_max_rows}")
    side = limits.chart_max_side_px
    for name in ("width", "height"):
        # A size given as a number is refused before the layout: Vega lays out a 50,000 px
        # axis for seconds first. Sizes it computes (a step per value) are checked after.
        value = spec.get(name)
        if isinstance(value, int | float) and not isinstance(value, bool) and value > side:
            raise ChartError(f"its {name} is {value:.0f} px; the limit is {side} px a side")


def _draw(spec: dict[str, Any], limits: Limits, *, vector: bool) -> tuple[str, float, float]:
    """(data URI, width, height in CSS px): the SVG itself when `vector`, else a 2x PNG.
    Laid out as SVG first, so a chart whose size would rasterise to gigabytes (width 100000,
    or a step per one of 10,000 rows) is refused before a pixel is allocated."""
    try:
        svg = vl_convert.vegalite_to_svg(spec, allowed_base_urls=[])
    except Exception as exc:  # vl-convert raises ValueError for any bad spec
        raise ChartError(str(exc).splitlines()[0][:200] if str(exc) else "invalid spec") from None
    size = _SVG_SIZE.search(svg[:2000])
    if size is None:
        raise ChartError("the chart has no size")
    width, height = float(size.group(1)), float(size.group(2))
    side = limits.chart_max_side_px
    if width > side or height > side:
        raise ChartError(f"it is {width:.0f} x {height:.0f} px; the limit is {side} px a side")
    if vector:
        encoded = base64.b64encode(svg.encode("utf-8")).decode()
        return f"data:image/svg+xml;base64,{encoded}", width, height
    png = vl_convert.svg_to_png(svg, scale=_SCALE)
    return f"data:image/png;base64,{base64.b64encode(png).decode()}", width, height


def _cache_put(key: str, image: tuple[str, float, float], limit: int) -> None:
    global _cache_bytes
    size = len(image[0])
    with _cache_lock:
        if key in _cache or size > limit:
            return
        _cache[key] = image
        _cache_bytes += size
        while _cache_bytes > limit:
            _, evicted = _cache.popitem(last=False)
            _cache_bytes -= len(evicted[0])


def chart_image(
    spec: dict[str, Any], *, limits: Limits = DEFAULT_LIMITS, vector: bool = False
) -> tuple[str, float, float]:
    """(data URI, width, height) of a Vega-Lite spec, in CSS pixels (xhtml2pdf draws
    1 px as 0.75 pt, as a browser prints); an SVG when `vector` (renderers that draw SVG
    keep charts sharp at any zoom), else a 2x PNG; cached by content hash."""
    _check_spec(spec, limits)
    canonical = json.dumps(spec, sort_keys=True, separators=(",", ":"))
    key = hashlib.sha256(f"{vector}:{canonical}".encode()).hexdigest()
    with _cache_lock:
        if key in _cache:
            _cache.move_to_end(key)
            return _cache[key]
    uri, width, height = _draw(spec, limits, vector=vector)
    if width > _MAX_WIDTH_PX:
        width, height = _MAX_WIDTH_PX, height * _MAX_WIDTH_PX / width
    image = (uri, width, height)
    _cache_put(key, image, limits.chart_cache_bytes)
    return image


def _frame(width: float, height: float) -> str:
    # An empty SVG of the chart's size: the <img> keeps its intrinsic size and ratio (so a
    # template's `width: 100%; height: auto` still works) and draws nothing itself.
    svg = f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}"/>'
    return f"data:image/svg+xml;base64,{base64.b64encode(svg.encode()).decode()}"


def _shared_rule(number: int, uri: str) -> str:
    return (
        f'[{_SHARED_ATTRIBUTE}="{number}"] {{ background: url("{uri}") center / 100% 100% '
        "no-repeat !important; }"
    )


def charts_embed(
    html: str,
    *,
    limits: Limits = DEFAULT_LIMITS,
    on_chart: Callable[[int, int], None] | None = None,
    vector: bool = False,
) -> tuple[str, list[str]]:
    """Replace every chart placeholder with its image (SVG when `vector`); return
    (html, warnings). Each distinct image is written once, as the background of a CSS
    rule in one <style> block, and every use of it is a small <img> that rule paints, so
    a chart repeated 500 times adds 500 short tags, not 500 copies of the image."""
    specs = list(dict.fromkeys(_PLACEHOLDER.findall(html)))
    if not specs:
        return html, []
    if len(specs) > limits.max_charts:
        raise LimitExceeded(
            f"The report has {len(specs)} distinct charts; the limit is {limits.max_charts}."
        )
    uses: dict[str, str] = {}
    drawn: dict[str, int] = {}  # bytes of the image each use draws
    numbers: dict[str, int] = {}  # image data URI -> its rule's number
    warnings: list[str] = []
    for done, encoded in enumerate(specs, start=1):
        try:
            uri, width, height = chart_image(
                json.loads(unquote(encoded)), limits=limits, vector=vector
            )
        except json.JSONDecodeError:
            warnings.append(f"Chart {done} dropped: its spec is not valid JSON.")
            uses[encoded] = f'src="{_EMPTY_GIF}"'
        except ChartError as exc:
            warnings.append(f"Chart {done} dropped: {exc}.")
            uses[encoded] = f'src="{_EMPTY_GIF}"'
        else:
            # Two spellings of one spec (key order, spaces) draw the same image: one rule.
            number = numbers.setdefault(uri, len(numbers) + 1)
            drawn[encoded] = len(uri)
            uses[encoded] = (
                f'src="{_frame(width, height)}" width="{width:.0f}" height="{height:.0f}" '
                f'{_SHARED_ATTRIBUTE}="{number}"'
            )
        if on_chart is not None:
            on_chart(done, len(specs))
    rules = " ".join(_shared_rule(number, uri) for uri, number in numbers.items())
    style = f"<style {_SHARED_ATTRIBUTE}s>{rules}</style>" if rules else ""
    _check_drawn_size(html, drawn, limits.max_html_bytes)
    first = next(_PLACEHOLDER.finditer(html)).start()  # there is one: specs is not empty
    # The rules go just before the first chart's <img>: a <style> element is read wherever
    # it stands, and there is no <head> to find in a template's fragment. The uses are
    # replaced first, so the regex never scans the images (MBs of base64); they all stand
    # after `tag`, so it is still the same place.
    tag = html.rfind("<", 0, first)
    html = _PLACEHOLDER.sub(lambda m: uses[m.group(1)], html)
    return html[:tag] + style + html[tag:], warnings


def _check_drawn_size(html: str, drawn: dict[str, int], limit: int) -> None:
    """Count what the renderer will draw before building anything: the document stays
    small, but xhtml2pdf decodes and WeasyPrint re-draws the image at every use, so each
    use counts its image's bytes against the document limit, as if it were inlined."""
    counted = Counter(m.group(1) for m in _PLACEHOLDER.finditer(html))
    size = len(html) + sum(count * drawn.get(encoded, 0) for encoded, count in counted.items())
    if size > limit:
        raise LimitExceeded(
            f"The charts would have the renderer draw {size_text(size)} of images and text; the "
            f"limit is {size_text(limit)} (each use of a chart counts)."
        )


_SHARED_RULE = re.compile(
    r"\[" + _SHARED_ATTRIBUTE + r'="(\d+)"\] \{ background: url\("(data:image/[^"]+)"\)'
)
_SHARED_STYLE_OPEN = f"<style {_SHARED_ATTRIBUTE}s>"
_SHARED_USE = re.compile(
    r'src="[^"]*"( width="\d+" height="\d+") ' + _SHARED_ATTRIBUTE + r'="(\d+)"'
)
LINK_SCHEME = "chart-image:"


def chart_styles_apart(html: str) -> tuple[str, str]:
    """The HTML without its shared chart rules, and those rules as CSS: a renderer that
    lays a document out in chunks gives every chunk the rules, not only the one where the
    first chart stood."""
    html, blocks = _shared_styles_cut(html)
    return html, " ".join(blocks)


def _shared_styles_cut(html: str) -> tuple[str, list[str]]:
    """The HTML without its shared-image <style> blocks, and their contents. Found with
    str.find: the blocks hold every chart's data URI, megabytes a regex would walk."""
    blocks: list[str] = []
    kept: list[str] = []
    start = 0
    while (opened := html.find(_SHARED_STYLE_OPEN, start)) >= 0:
        body = opened + len(_SHARED_STYLE_OPEN)
        closed = html.find("</style>", body)
        if closed < 0:
            break
        kept.append(html[start:opened])
        blocks.append(html[body:closed])
        start = closed + len("</style>")
    if not blocks:
        return html, []
    kept.append(html[start:])
    return "".join(kept), blocks


def chart_links(html: str) -> tuple[str, dict[str, str]]:
    """For a renderer that paints no CSS backgrounds on images (xhtml2pdf): the shared
    images as links instead, `<img src="chart-image:N">`, and what each link resolves to
    (its data URI), for the renderer's link callback. The image data leaves the HTML."""
    images: dict[str, str] = {}
    cut, blocks = _shared_styles_cut(html)
    for block in blocks:
        images.update(
            (f"{LINK_SCHEME}{number}", uri) for number, uri in _SHARED_RULE.findall(block)
        )
    if not images:
        return html, {}
    return _SHARED_USE.sub(lambda m: f'src="{LINK_SCHEME}{m.group(2)}"{m.group(1)}', cut), images
