"""`python -m tests.bench.pdf_sizes`: the PDF size of the 50-page sample and the studio
invoice, per renderer, before and after the optimize step (150 and 72 dpi), and their image
streams counted by content hash with pikepdf; prints the table of docs/benchmarks/."""

from __future__ import annotations

import hashlib
import io
import os
import sys


def image_streams(content: bytes) -> tuple[int, int]:
    """(image XObjects, distinct images among them by the hash of their decoded bytes)."""
    import pikepdf

    with pikepdf.open(io.BytesIO(content)) as pdf:
        hashes = [
            hashlib.sha256(obj.read_bytes()).hexdigest()
            for obj in pdf.objects
            if isinstance(obj, pikepdf.Stream) and obj.get("/Subtype") == "/Image"
        ]
    return len(hashes), len(set(hashes))


def _change(before: int, after: int) -> str:
    if after == before:  # the step keeps the renderer's file when it cannot make it smaller
        return f"{after:,} B (kept)"
    return f"{after:,} B ({(after - before) / before:+.1%})"


def main() -> int:
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")
    django.setup()
    from rendering.options import parse_options
    from rendering.postprocess.optimize import images_optimize
    from rendering.report import TemplateSource, report_render
    from reports.limits import limits_from_settings
    from reports.samples import sample_files

    rows = [
        ("operations-review", "xhtml2pdf"),
        ("operations-review", "weasyprint"),
        ("operations-review", "chromium"),
        ("studio-invoice", "weasyprint"),
        ("studio-invoice", "chromium"),
    ]
    print(
        "| sample | renderer | pages | as rendered | optimize 150 dpi | optimize 72 dpi "
        "| image streams (distinct) |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for slug, renderer in rows:
        html, css, data = sample_files(slug)
        rendered = report_render(
            source=TemplateSource(engine="handlebars", html=html, css=css, renderer=renderer),
            data=data,
            options=parse_options({}),
            limits=limits_from_settings(),
        )
        before = len(rendered.content)
        at_150, _ = images_optimize(rendered.content, image_dpi=150)
        at_72, _ = images_optimize(rendered.content, image_dpi=72)
        streams, distinct = image_streams(rendered.content)
        print(
            f"| `{slug}` | {renderer} | {rendered.page_count} | {before:,} B | "
            f"{_change(before, len(at_150))} | {_change(before, len(at_72))} | "
            f"{streams} ({distinct}) |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
