"""Reading a finished PDF back with pikepdf: does it hold what its profile and metadata
claim? Each check is a name, a verdict and what was found, never a silent pass."""

from __future__ import annotations

import io
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from rendering.postprocess.document_options import DocumentOptions

if TYPE_CHECKING:
    import pikepdf

# pikepdf is imported by the functions that read a PDF: Check is imported at every
# process start (the sign and e-invoice steps' modules), pikepdf costs it ~30 ms. A worker
# imports it before its pool forks (rendering.preload).

_PDFAID = "{http://www.aiim.org/pdfa/ns/id/}"
_PDFUAID = "{http://www.aiim.org/pdfua/ns/id/}"
_FONT_FILES = ("/FontFile", "/FontFile2", "/FontFile3")


@dataclass(frozen=True)
class Check:
    name: str
    passed: bool
    detail: str


def _xmp(pdf: pikepdf.Pdf) -> dict[str, str]:
    if "/Metadata" not in pdf.Root:
        return {}
    with pdf.open_metadata(set_pikepdf_as_editor=False, update_docinfo=False) as meta:
        return {str(key): str(value) for key, value in meta.items()}


def _fonts(pdf: pikepdf.Pdf) -> Iterator[pikepdf.Dictionary]:
    import pikepdf

    for obj in pdf.objects:
        if isinstance(obj, pikepdf.Dictionary) and obj.get("/Type") == "/Font":
            yield obj


def _font_embedded(font: pikepdf.Object) -> bool:
    subtype = font.get("/Subtype")
    if subtype == "/Type3":
        return True  # its glyphs are content streams in the file itself
    if subtype == "/Type0":
        return all(_font_embedded(d) for d in font.get("/DescendantFonts", []))
    descriptor = font.get("/FontDescriptor")
    return descriptor is not None and any(key in descriptor for key in _FONT_FILES)


def fonts_check(pdf: pikepdf.Pdf) -> Check:
    fonts = list(_fonts(pdf))
    missing = sorted({str(f.get("/BaseFont", "?")) for f in fonts if not _font_embedded(f)})
    if missing:
        return Check("fonts_embedded", False, f"not embedded: {', '.join(missing[:10])}")
    return Check("fonts_embedded", True, f"{len(fonts)} font(s), all embedded")


def _pdfa_checks(pdf: pikepdf.Pdf, xmp: dict[str, str], profile: str) -> list[Check]:
    part, level = profile.removeprefix("pdf/a-")[0], profile[-1].upper()
    found = (xmp.get(f"{_PDFAID}part", ""), xmp.get(f"{_PDFAID}conformance", ""))
    intents = [i for i in pdf.Root.get("/OutputIntents", []) if i.get("/S") == "/GTS_PDFA1"]
    with_profile = [i for i in intents if "/DestOutputProfile" in i]
    return [
        Check(
            "pdfa_identification",
            found == (part, level),
            f"XMP pdfaid:part={found[0] or '-'} conformance={found[1] or '-'}; "
            f"{profile} needs part={part} conformance={level}",
        ),
        Check(
            "output_intent",
            bool(with_profile),
            f"{len(with_profile)} GTS_PDFA1 output intent(s) with an ICC profile",
        ),
        Check(
            "not_encrypted",
            not pdf.is_encrypted,
            "encrypted: PDF/A forbids encryption" if pdf.is_encrypted else "no encryption",
        ),
    ]


def _forbidden_check(pdf: pikepdf.Pdf) -> Check:
    """PDF/A forbids JavaScript and launching programs; nothing of it may slip in."""
    import pikepdf

    found: set[str] = set()
    names = pdf.Root.get("/Names")
    if names is not None and "/JavaScript" in names:
        found.add("document JavaScript")
    for obj in pdf.objects:
        if not isinstance(obj, pikepdf.Dictionary):
            continue
        if "/JS" in obj or obj.get("/S") == "/JavaScript":
            found.add("JavaScript action")
        if obj.get("/S") in ("/Launch", "/ImportData", "/ResetForm"):
            found.add(f"{obj.get('/S')} action")
    if found:
        return Check("forbidden_content", False, f"found: {', '.join(sorted(found))}")
    return Check("forbidden_content", True, "no JavaScript, launch or import actions")


def _entry(root: pikepdf.Object, name: str, key: str) -> object:
    """root[name][key], or None when either is missing."""
    parent = root.get(name)
    return parent.get(key) if parent is not None else None


def _tagged_checks(pdf: pikepdf.Pdf, xmp: dict[str, str], *, ua: bool) -> list[Check]:
    root = pdf.Root
    tree = root.get("/StructTreeRoot")
    kids = tree.get("/K") if tree is not None else None
    marked = bool(_entry(root, "/MarkInfo", "/Marked"))
    checks = [
        Check(
            "structure_tree",
            kids is not None and marked,
            f"StructTreeRoot {'present' if tree is not None else 'missing'}, "
            f"{'with' if kids is not None else 'without'} elements; MarkInfo Marked={marked}",
        )
    ]
    if ua:
        part = xmp.get(f"{_PDFUAID}part", "")
        display = str(bool(_entry(root, "/ViewerPreferences", "/DisplayDocTitle")))
        title = xmp.get("{http://purl.org/dc/elements/1.1/}title", "")
        checks += [
            Check("pdfua_identification", part == "1", f"XMP pdfuaid:part={part or '-'}"),
            Check("lang", bool(str(root.get("/Lang", ""))), f"/Lang={root.get('/Lang', '-')}"),
            Check(
                "title",
                bool(title) and display == "True",
                f"XMP dc:title {'set' if title else 'missing'}; DisplayDocTitle={display}",
            ),
        ]
    return checks


def _metadata_check(pdf: pikepdf.Pdf, document: DocumentOptions) -> Check | None:
    wanted = document.metadata
    info = pdf.docinfo
    expected = {
        "/Title": wanted.title,
        "/Author": wanted.author,
        "/Subject": wanted.subject,
        "/Keywords": ", ".join(wanted.keywords),
    }
    expected = {key: value for key, value in expected.items() if value}
    if not expected and not wanted.lang:
        return None
    wrong = [key[1:] for key, value in expected.items() if str(info.get(key, "")) != value]
    lang = str(pdf.Root.get("/Lang", ""))
    if wanted.lang and lang != wanted.lang:
        wrong.append(f"Lang ({lang or 'missing'})")
    names = [key[1:] for key in expected] + (["Lang"] if wanted.lang else [])
    detail = f"differs: {', '.join(wrong)}" if wrong else f"as asked: {', '.join(names)}"
    return Check("metadata", not wrong, detail)


def checks_run(content: bytes, document: DocumentOptions, *, password: str = "") -> list[Check]:
    """Every check the document's options call for, run on the PDF as it will be stored
    (`password`: an encrypted one's owner password, so its checks read what a reader does)."""
    import pikepdf

    with pikepdf.open(io.BytesIO(content), password=password) as pdf:
        xmp = _xmp(pdf)
        checks: list[Check] = []
        if document.is_pdfa:
            checks += _pdfa_checks(pdf, xmp, document.profile)
        if document.profile:
            checks += [fonts_check(pdf), _forbidden_check(pdf)]
        if document.is_tagged:
            checks += _tagged_checks(pdf, xmp, ua=document.is_ua)
        if (metadata := _metadata_check(pdf, document)) is not None:
            checks.append(metadata)
    return checks


def checks_as_json(checks: list[Check]) -> list[dict[str, Any]]:
    return [asdict(check) for check in checks]
