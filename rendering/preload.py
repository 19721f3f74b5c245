"""The libraries a job renders, fills and signs with, imported on purpose.

The modules that use them import them inside their functions, so a process that never
renders (the web, beat, a management command) does not pay for them at start. A worker's
main process calls `libraries_import` before its pool forks (jobs.worker.signals): every
child inherits them instead of spending its first job on the imports.
"""

from __future__ import annotations

import importlib

# What a job imports on its way (module paths, not names: each is imported whole).
LIBRARIES: tuple[str, ...] = (
    # The default renderer: xhtml2pdf, ReportLab, html5lib, pypdf (rendering.renderers).
    "rendering.renderers.xhtml2pdf",
    # A job's post-render steps and checks: pikepdf, pypdf, ReportLab, Pillow (jobs.steps).
    "rendering.postprocess.checks",
    "rendering.postprocess.finish",
    "rendering.postprocess.pdf_steps",
    # PDF forms (rendering.forms) and e-invoices (rendering.postprocess.einvoice).
    "facturx",
    "pikepdf",
    "pypdf",
    "pypdf.annotations",
    "pypdf.errors",
    "pypdf.generic",
    # Thumbnails and previews' page images (rendering.raster).
    "pypdfium2",
    # Template engines: python-liquid, and python-docx and docxtpl for Word templates.
    "rendering.engines.liquid",
    "docx.image.exceptions",
    "docx.image.image",
    "docx.opc.exceptions",
    "docx.shared",
    "docxtpl",
    # The Chromium renderer's driver (rendering.renderers.chromium_browser).
    "playwright.async_api",
    # The sign step (rendering.postprocess.signing, .timestamps).
    "cryptography.hazmat.primitives.serialization.pkcs12",
    "pyhanko.pdf_utils.incremental_writer",
    "pyhanko.pdf_utils.reader",
    "pyhanko.sign.fields",
    "pyhanko.sign.signers",
    "pyhanko.sign.timestamps",
    "pyhanko.sign.validation",
    "pyhanko.stamp",
    "pyhanko_certvalidator",
    "rendering.postprocess.timestamps",
)


def libraries_import() -> None:
    for name in LIBRARIES:
        importlib.import_module(name)
