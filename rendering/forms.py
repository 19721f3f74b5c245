"""PDF forms as templates (engine `pdf-form`): a fillable PDF (AcroForm) whose fields are
filled from the job's data, instead of HTML laid out by a renderer.

The template's source is the PDF as a data URI (`data:application/pdf;base64,...`), so it
is versioned, limited and stored like any other source. Its fields (text, checkbox, radio,
choice) become the template's JSON Schema and sample data at save; signature fields are
left empty, for the `sign` step or a person. A job fills the fields and, with
`options.flatten`, draws their values into the pages and drops the form, signature fields
included (nothing is left to edit; the sign step adds a field of its own).
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rendering.errors import InvalidInput, TemplateSyntaxError
from rendering.file_sources import file_content, file_source
from rendering.limits import DEFAULT_LIMITS, Limits

if TYPE_CHECKING:
    from pypdf import PdfReader

# pypdf and pikepdf are imported by the functions that read or fill a form: the engine
# registry imports this module in every process, and they cost each start ~0.1 s. A
# worker imports them before its pool forks (rendering.preload).

FORM_ENGINE = "pdf-form"
_MIME = "application/pdf"
# AcroForm field flags (PDF 32000-1, 12.7.4.2.1 and 12.7.4.3.1).
_RADIO = 1 << 15
_PUSHBUTTON = 1 << 16


@dataclass(frozen=True)
class FormField:
    name: str
    kind: str  # text, checkbox, radio, choice, signature
    options: tuple[str, ...] = ()  # a radio's or choice's values; a checkbox's "on" state
    value: str = ""


@dataclass(frozen=True)
class FilledForm:
    content: bytes
    page_count: int


def form_source(pdf: bytes) -> str:
    """A PDF as a pdf-form template's source."""
    return file_source(pdf, _MIME)


def form_pdf(source: str) -> bytes:
    """The PDF a pdf-form template's source holds; a template error saying what is wrong."""
    pdf = file_content(
        source, _MIME, engine=FORM_ENGINE, holds="a fillable PDF", placeholder="the PDF in base64"
    )
    if not pdf.startswith(b"%PDF-"):
        raise TemplateSyntaxError("The pdf-form template's data is not a PDF.")
    return pdf


def _reader(pdf: bytes) -> PdfReader:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        return PdfReader(io.BytesIO(pdf), strict=False)
    except (PdfReadError, ValueError, KeyError, TypeError) as exc:
        raise TemplateSyntaxError(f"The form PDF cannot be read: {exc}") from None


def _options(raw: Any) -> tuple[str, ...]:
    values = []
    for option in raw or ():
        # An option is its value, or [export value, display text].
        value = option[0] if isinstance(option, list | tuple) and option else option
        values.append(str(value))
    return tuple(values)


def _field(name: str, raw: Any) -> FormField | None:
    kind = raw.get("/FT")
    flags = int(raw.get("/Ff", 0) or 0)
    value = raw.get("/V")
    shown = "" if value is None else str(value).removeprefix("/")
    if kind == "/Tx":
        return FormField(name, "text", value=shown)
    if kind == "/Ch":
        return FormField(name, "choice", _options(raw.get("/Opt")), shown)
    if kind == "/Sig":
        return FormField(name, "signature")
    if kind == "/Btn" and not flags & _PUSHBUTTON:
        states = tuple(
            str(state).removeprefix("/")
            for state in raw.get("/_States_", ())
            if str(state) != "/Off"
        )
        kind_name = "radio" if flags & _RADIO else "checkbox"
        return FormField(name, kind_name, states, "" if shown == "Off" else shown)
    return None  # a push button: nothing to fill


def form_fields(pdf: bytes) -> list[FormField]:
    """The form's fillable fields, in the PDF's order; a template error when it has none."""
    return _fields_of(_reader(pdf))


def _fields_of(reader: PdfReader) -> list[FormField]:
    found = reader.get_fields() or {}
    fields = [field for name, raw in found.items() if (field := _field(name, raw)) is not None]
    if not [field for field in fields if field.kind != "signature"]:
        raise TemplateSyntaxError(
            "The PDF has no form fields to fill (an AcroForm with text, checkbox, radio or "
            "choice fields); XFA-only forms are not supported."
        )
    return fields


def form_schema(fields: list[FormField]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The JSON Schema a job's data must match, and sample data that fills every field
    (its value in the PDF, else its name, so a preview shows where each one is)."""
    properties: dict[str, Any] = {}
    sample: dict[str, Any] = {}
    for field in fields:
        if field.kind == "signature":
            continue  # signed by the sign step, not filled
        if field.kind == "checkbox":
            properties[field.name] = {"type": "boolean"}
            sample[field.name] = bool(field.value)
        elif field.options:
            properties[field.name] = {"type": "string", "enum": list(field.options)}
            sample[field.name] = field.value if field.value in field.options else field.options[0]
        else:
            properties[field.name] = {"type": "string"}
            sample[field.name] = field.value or field.name.rsplit(".", 1)[-1]
    schema = {"type": "object", "properties": properties, "additionalProperties": False}
    return schema, sample


def _values(fields: list[FormField], data: dict[str, Any]) -> dict[str, str]:
    by_name = {field.name: field for field in fields if field.kind != "signature"}
    unknown = sorted(set(data) - set(by_name))
    if unknown:
        raise InvalidInput(
            f"No form field named {unknown[0]!r} in this PDF form; its fields are: "
            f"{', '.join(sorted(by_name)[:20])}{'…' if len(by_name) > 20 else ''}."
        )
    values: dict[str, str] = {}
    for name, value in data.items():
        field = by_name[name]
        if field.kind == "checkbox":
            on = field.options[0] if field.options else "Yes"
            values[name] = f"/{on}" if value else "/Off"
        elif field.kind == "radio":
            if str(value) not in field.options:
                raise InvalidInput(
                    f"{name}: {str(value)[:40]!r} is not one of its choices: "
                    f"{', '.join(field.options)}."
                )
            values[name] = f"/{value}"
        else:
            values[name] = "" if value is None else str(value)
    return values


def _flattened(pdf: bytes) -> bytes:
    """The fields' values drawn into the pages and the form dropped (QPDF, through pikepdf:
    pypdf's own flattening draws one radio button of a group and loses the rest)."""
    import pikepdf

    with pikepdf.open(io.BytesIO(pdf)) as document:
        document.generate_appearance_streams()
        document.flatten_annotations("all")
        out = io.BytesIO()
        document.save(out)
        return out.getvalue()


def form_fill(
    pdf: bytes,
    data: dict[str, Any],
    *,
    flatten: bool = False,
    metadata: dict[str, str] | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> FilledForm:
    """The form with its fields set from `data` (by field name), flattened on request, with
    the document's title, author and subject when given."""
    from pypdf import PdfWriter
    from pypdf.generic import NameObject

    reader = _reader(pdf)  # parsed once: for its fields, then cloned to fill
    values = _values(_fields_of(reader), data)
    writer = PdfWriter(clone_from=reader)
    if len(writer.pages) > limits.max_pages:
        raise InvalidInput(
            f"The form has {len(writer.pages)} pages; the limit is {limits.max_pages}."
        )
    # A hybrid form (most government forms) also carries an XFA copy, which viewers that
    # read XFA show instead of the fields filled here: it goes.
    form = writer._root_object.get("/AcroForm")
    if form is not None and "/XFA" in form.get_object():
        del form.get_object()[NameObject("/XFA")]
    if values:
        writer.update_page_form_field_values(None, values)
    if metadata:
        writer.add_metadata({f"/{key.title()}": value for key, value in metadata.items() if value})
    out = io.BytesIO()
    writer.write(out)
    content = _flattened(out.getvalue()) if flatten else out.getvalue()
    return FilledForm(content=content, page_count=len(writer.pages))


class PdfFormEngine:
    """The engine registry's entry for pdf-form templates: it checks the source at save;
    a job fills the PDF (rendering.report) instead of making HTML."""

    name = FORM_ENGINE
    label = "PDF form (fillable AcroForm)"

    def check(self, source: str) -> None:
        # Only that it is PDF data, one data URI a line (several: PDFs passed through,
        # rendering.pdf_files): the PDF itself is parsed by the worker, never the web
        # process; a template's save reads its fields for the schema (reports.services).
        lines = [line.strip() for line in source.splitlines() if line.strip()]
        for line in lines or [source]:
            form_pdf(line)

    def render(
        self, source: str, data: dict[str, Any], limits: Limits = DEFAULT_LIMITS, **_: Any
    ) -> str:
        raise InvalidInput(
            "A pdf-form template fills a PDF and makes no HTML; ask for its PDF instead."
        )
