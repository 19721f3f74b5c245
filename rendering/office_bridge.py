"""The UNO side of the office renderer, run as a script under the system Python that has
`uno` (Debian's python3-uno), never imported by the worker: it connects to one warm
soffice and converts one document per JSON line read from stdin, answering a JSON line.

A request: {"in": path, "out": path, "page_range": "1-2", "landscape": bool,
"pdf_version": 0-3, "ua": bool}. An answer: {"ok": true} or {"error": "..."}.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from typing import Any

import uno  # type: ignore[import-not-found]  # the system Python's, not the venv's
from com.sun.star.beans import PropertyValue  # type: ignore[import-not-found]

# com.sun.star.document.MacroExecMode.NEVER_EXECUTE and UpdateDocMode.NO_UPDATE: macros
# in the document never run and its links (OLE, DDE, external images) are never updated.
_NEVER_EXECUTE = 0
_NO_UPDATE = 0
_EXPORT_FILTERS = (
    ("com.sun.star.sheet.SpreadsheetDocument", "calc_pdf_Export"),
    ("com.sun.star.presentation.PresentationDocument", "impress_pdf_Export"),
    ("com.sun.star.drawing.DrawingDocument", "draw_pdf_Export"),
    ("com.sun.star.text.WebDocument", "writer_web_pdf_Export"),
    ("com.sun.star.text.GenericTextDocument", "writer_pdf_Export"),
)


def _props(**values: Any) -> tuple[Any, ...]:
    found = []
    for name, value in values.items():
        prop = PropertyValue()
        prop.Name, prop.Value = name, value
        found.append(prop)
    return tuple(found)


def _connect(pipe: str, deadline: float) -> Any:
    local = uno.getComponentContext()
    resolver = local.ServiceManager.createInstanceWithContext(
        "com.sun.star.bridge.UnoUrlResolver", local
    )
    while True:
        try:
            context = resolver.resolve(f"uno:pipe,name={pipe};urp;StarOffice.ComponentContext")
            return context.ServiceManager.createInstanceWithContext(
                "com.sun.star.frame.Desktop", context
            )
        except Exception:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def _landscape(document: Any) -> None:
    """Every page style turned (text and spreadsheet documents; slides keep their own)."""
    if not hasattr(document, "getStyleFamilies"):
        return
    families = document.getStyleFamilies()
    if not families.hasByName("PageStyles"):
        return
    styles = families.getByName("PageStyles")
    for name in styles.getElementNames():
        style = styles.getByName(name)
        width, height = style.Width, style.Height
        style.IsLandscape = True
        if width < height:
            style.Width, style.Height = height, width


def _convert(desktop: Any, request: dict[str, Any]) -> Any:
    """The document loaded and stored as PDF; returned open, closed by the caller once the
    answer is out (closing it is no part of the PDF: the worker reads the file meanwhile).
    A conversion that fails closes its document here."""
    document = desktop.loadComponentFromURL(
        uno.systemPathToFileUrl(request["in"]),
        "_blank",
        0,
        _props(
            Hidden=True,
            ReadOnly=True,
            MacroExecutionMode=_NEVER_EXECUTE,
            UpdateDocMode=_NO_UPDATE,
        ),
    )
    if document is None:
        raise ValueError("LibreOffice could not open the file")
    try:
        if request.get("landscape"):
            _landscape(document)
        export = next(
            (name for service, name in _EXPORT_FILTERS if document.supportsService(service)),
            "writer_pdf_Export",
        )
        data: dict[str, Any] = {"SelectPdfVersion": int(request.get("pdf_version", 0))}
        if request.get("page_range"):
            data["PageRange"] = request["page_range"]
        if request.get("ua"):
            data |= {"PDFUACompliance": True, "UseTaggedPDF": True}
        filter_data = uno.Any("[]com.sun.star.beans.PropertyValue", _props(**data))
        document.storeToURL(
            uno.systemPathToFileUrl(request["out"]),
            _props(FilterName=export, FilterData=filter_data),
        )
    except BaseException:
        _close(document)
        raise
    return document


def _close(document: Any) -> None:
    """Close a document; a LibreOffice that went away meanwhile is found by the next
    conversion (its load fails as lost, and the worker starts another)."""
    try:
        document.close(True)
    except Exception:  # noqa: S110 - see above: the next request tells
        pass


def _answers(desktop: Any) -> bool:
    """Whether soffice still answers. Killed, it can fail the call in flight with a plain
    RuntimeException ("illegal object given!") before the process it was started as has
    exited (soffice.bin is a grandchild), so neither the exception's name nor poll() tells."""
    try:
        desktop.getFrames()
    except Exception:
        return False
    return True


def main() -> None:
    # argv: the pipe's name, seconds to wait for soffice, then soffice's command line. soffice
    # is this script's child: it shares its process group and network namespace.
    office = subprocess.Popen(sys.argv[3:], stdin=subprocess.DEVNULL)  # noqa: S603
    try:
        desktop = _connect(sys.argv[1], time.monotonic() + float(sys.argv[2]))
    except Exception:
        office.kill()
        raise
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        document = None
        try:
            document = _convert(desktop, json.loads(line))
            answer: dict[str, Any] = {"ok": True}
        except Exception as exc:
            answer = {"error": f"{type(exc).__name__}: {str(exc)[:300]}"}
            # soffice died (a crash on some file): the worker starts a new pair and retries.
            lost = "DisposedException" in type(exc).__name__  # its uno name, dotted
            answer["lost"] = lost or office.poll() is not None or not _answers(desktop)
        print(json.dumps(answer), flush=True)
        if document is not None:
            # After the answer: the PDF is written, and the next request is read only
            # once this document is closed.
            _close(document)
        if answer.get("lost"):
            break
    office.terminate()  # the worker went away: so does its LibreOffice


if __name__ == "__main__":
    main()
