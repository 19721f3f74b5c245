"""Word templates (engine `docx`): a .docx whose text carries Jinja tags (docxtpl:
`{{ customer.name }}`, `{%tr for line in lines %}` over table rows, `{%p if paid %}`),
filled with the job's data in the same sandbox as the jinja2 engine, then turned into PDF
by LibreOffice (rendering.office).

The template's source is the .docx as a data URI, so it is versioned, limited and stored
like any other source (like a pdf-form's PDF). Its tags become the template's JSON Schema
and sample data at save (attributes make objects, row loops lists of them). An image in
the data is a data URI (`data:image/png;base64,...`): `{{ logo }}` places it at its own
size (at most the text width), `{{ logo | image(40) }}` at 40 mm wide.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import io
import re
import threading
import zipfile
from collections import OrderedDict
from collections.abc import Iterator, Mapping, MutableMapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import jinja2
from jinja2 import nodes

from rendering.digest_memo import DigestMemo, digest_of
from rendering.engines.docx_zip import Deflated, KeptPartsZipWriter, deflated_parts
from rendering.engines.jinja import jinja_environment, jinja_errors
from rendering.errors import (
    InvalidInput,
    RenderError,
    TemplateRuntimeError,
    TemplateSyntaxError,
)
from rendering.file_sources import file_content, file_source
from rendering.isolated import run_isolated
from rendering.limits import DEFAULT_LIMITS, Limits
from rendering.office_files import zip_check

if TYPE_CHECKING:
    from docxtpl import DocxTemplate, InlineImage

# python-docx and docxtpl are imported by the functions that open a .docx: the engines'
# registry imports this module in every process, and they cost each start ~40 ms.

DOCX_ENGINE = "docx"
DOCX_MIME = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
# An image without a width is placed at its own size, but never wider than an A4 page's
# text (210 mm less two 25 mm margins).
_MAX_IMAGE_MM = 160
# The sources that passed the check: integrators submit the same inline .docx again and
# again, and its check (the zip's XML scanned, the document parsed, its tags parsed: 30 ms
# for the one-page invoice) is on the submit path. Only a pass is kept; a failing source is
# checked (and refused) each time.
_checked: DigestMemo[bool] = DigestMemo(64)
# The .docx files whose zip passed zip_check here (a pass only, as above).
_zips_passed: DigestMemo[bool] = DigestMemo(64)


def docx_source(content: bytes) -> str:
    """A .docx as a docx template's source."""
    return file_source(content, DOCX_MIME)


def docx_file(source: str) -> bytes:
    """The .docx a docx template's source holds, its zip checked; a template error saying
    what is wrong."""
    content = file_content(
        source,
        DOCX_MIME,
        engine=DOCX_ENGINE,
        holds="a Word document",
        placeholder="the .docx in base64",
    )
    # A zip bomb or an XML part declaring entities is refused before docxtpl unpacks it;
    # the same bytes passed once pass again (a worker fills one template job after job).
    digest = digest_of(content)
    if digest not in _zips_passed:
        zip_check(content, "template.docx")
        _zips_passed.put(digest, True)
    return content


def _template(content: bytes) -> DocxTemplate:
    from docx.opc.exceptions import PackageNotFoundError
    from docxtpl import DocxTemplate

    try:
        return DocxTemplate(io.BytesIO(content))
    except (PackageNotFoundError, KeyError, ValueError):
        raise _not_a_document() from None


def _not_a_document() -> TemplateSyntaxError:
    return TemplateSyntaxError(
        "The docx template is not a Word document (.docx); save it from Word or LibreOffice "
        "as 'Word 2007-365 (.docx)'."
    )


def _syntax_error(exc: jinja2.TemplateSyntaxError) -> TemplateSyntaxError:
    # docxtpl renders the document's XML as one template: its line numbers are the XML's,
    # of no use to the author, who sees the message and the tag's text.
    return TemplateSyntaxError(f"Template syntax error in the Word document: {exc.message}")


def docx_variables(content: bytes) -> list[str]:
    """The top-level names the template's tags use, sorted; a template error for a tag that
    does not parse."""
    return sorted(_parsed(content)[0])


def _parsed(content: bytes) -> tuple[set[str], nodes.Template]:
    """The top-level names and the parsed tags of the whole document (body, headers and
    footers as docxtpl joins them)."""
    template = _template(content)
    environment = _environment(template, DEFAULT_LIMITS)
    trees: list[nodes.Template] = []
    parse = environment.parse

    def keeping(source: str, *args: Any, **kwargs: Any) -> nodes.Template:
        trees.append(parse(source, *args, **kwargs))
        return trees[-1]

    environment.parse = keeping  # type: ignore[method-assign]
    try:
        names = template.get_undeclared_template_variables(environment)
    except jinja2.TemplateSyntaxError as exc:
        raise _syntax_error(exc) from None
    except (KeyError, ValueError):  # a zip without a document's parts
        raise _not_a_document() from None
    return set(names), trees[-1]


def _environment(template: DocxTemplate, limits: Limits) -> jinja2.Environment:
    environment = jinja_environment(limits)
    environment.filters["image"] = lambda value, width_mm=None: _inline_image(
        template, value, width_mm
    )
    return environment


def docx_schema(content: bytes) -> tuple[dict[str, Any], dict[str, Any]]:
    """The JSON Schema and sample data the tags give: `customer.name` an object with a
    name, `{%tr for line in lines %}` with `line.item` a list of objects with an item, any
    other name a value of any type (a tag may print a number or a string). The sample
    fills each value with its own name, so the preview shows where each one goes."""
    names, tree = _parsed(content)
    shape: dict[str, Any] = {name: {} for name in names}
    for path in _paths(tree, names):
        node = shape
        for part in path:
            node = node.setdefault(part, {})
    properties = {name: _schema(name, node) for name, node in sorted(shape.items())}
    sample = {name: _sample(name, node) for name, node in sorted(shape.items())}
    return {"type": "object", "properties": properties}, sample


_ITEMS = "[]"  # a path's step into a list's items


def _paths(tree: nodes.Template, names: set[str]) -> list[tuple[str, ...]]:
    """Every attribute path the tags read from the data, a loop's variable replaced by the
    list it runs over: `line.item` in `for line in lines` is lines[].item."""
    loops: dict[str, tuple[str, ...]] = {}
    for loop in tree.find_all(nodes.For):
        source = _path(loop.iter, loops)
        if isinstance(loop.target, nodes.Name) and source:
            loops[loop.target.name] = (*source, _ITEMS)
    paths = [_path(node, loops) for node in tree.find_all(nodes.Getattr)]
    paths += [loops[name] for name in loops]
    return [path for path in paths if path and path[0] in names]


def _path(node: nodes.Node, loops: dict[str, tuple[str, ...]]) -> tuple[str, ...]:
    if isinstance(node, nodes.Name):
        return loops.get(node.name, (node.name,))
    if isinstance(node, nodes.Getattr):
        inner = _path(node.node, loops)
        return (*inner, node.attr) if inner else ()
    return ()


def _schema(path: str, node: dict[str, Any]) -> dict[str, Any]:
    if _ITEMS in node:
        return {"type": "array", "items": _schema(f"{path}[]", node[_ITEMS])}
    if node:
        properties = {key: _schema(f"{path}.{key}", child) for key, child in sorted(node.items())}
        return {"type": "object", "properties": properties}
    return {"description": f"{path} in the document"}


def _sample(name: str, node: dict[str, Any]) -> Any:
    if _ITEMS in node:
        return [_sample(name, node[_ITEMS])]
    if node:
        return {key: _sample(key, child) for key, child in sorted(node.items())}
    return name


def _image_bytes(uri: str) -> bytes:
    try:
        return base64.b64decode(uri.split(",", 1)[1], validate=True)
    except (IndexError, binascii.Error, ValueError):
        raise TemplateRuntimeError(
            "An image in the data is a data URI whose base64 does not decode."
        ) from None


def _images(template: DocxTemplate, value: Any) -> Any:
    """The data with every image data URI made an image docxtpl places."""
    if isinstance(value, str) and value.startswith("data:image/"):
        return _inline_image(template, value, None)
    if isinstance(value, dict):
        return {key: _images(template, item) for key, item in value.items()}
    if isinstance(value, list):
        return [_images(template, item) for item in value]
    return value


def _inline_image(template: DocxTemplate, value: Any, width_mm: float | None) -> InlineImage:
    from docx.image.exceptions import UnrecognizedImageError
    from docx.image.image import Image
    from docx.shared import Mm
    from docxtpl import InlineImage

    if isinstance(value, InlineImage):  # a data URI already made an image, given a width
        value = value.image_descriptor.getvalue()
    elif isinstance(value, str) and value.startswith("data:image/"):
        value = _image_bytes(value)
    else:
        raise TemplateRuntimeError("image(): takes an image given as a data URI.")
    if width_mm is not None and not 1 <= width_mm <= _MAX_IMAGE_MM:
        raise TemplateRuntimeError(f"image(): the width is 1 to {_MAX_IMAGE_MM} mm.")
    try:
        native = Image.from_blob(value)
    except UnrecognizedImageError:
        raise TemplateRuntimeError(
            "An image in the data is not a PNG, JPEG, GIF, BMP or TIFF."
        ) from None
    width = Mm(width_mm) if width_mm else None
    if width is None and native.width > Mm(_MAX_IMAGE_MM):
        width = Mm(_MAX_IMAGE_MM)  # never wider than the text
    return InlineImage(template, io.BytesIO(value), width=width)


def docx_fill(content: bytes, data: dict[str, Any], limits: Limits = DEFAULT_LIMITS) -> bytes:
    """The template filled with the data, as a .docx: in a forked child under the template
    limits (time, memory), like the other engines' renders. (Its tags were checked at save
    or submit.) A template small enough to keep (_keepable) is parsed, its body patched,
    its tags compiled and its parts deflated once in this process (_prepared) and the
    child fills its copy-on-write copy, as the jinja engine's child renders the template
    compiled before the fork; a larger one is parsed in the child, each time."""
    prepared = _prepared(content, limits)
    if prepared is None:
        return run_isolated(lambda: _fill(_Prepared.parse(content, limits), data, limits), limits)
    return run_isolated(lambda: _fill(prepared, data, limits), limits)


# The templates this process parsed lately, by the .docx's SHA-256 and the limits (the
# sandbox's output cap is compiled into its environment). Only this process reads them:
# a fill writes into the forked child's copy-on-write copy, never into the kept one, so
# no job's data or render reaches another's. A template is kept only when its parts are
# small (_PREPARED_MAX_BYTES unpacked, _PREPARED_MAX_XML_BYTES of them XML, which lxml
# holds at a few times its size; as the zip declares them: zip_check held it to
# that), so the parse and the compile outside the child stay small too. Its parts'
# deflated copies (_Prepared.keep) add at most as much again as the parts themselves.
_PREPARED_KEPT = 4
_PREPARED_MAX_BYTES = 8 * 1024 * 1024
_PREPARED_MAX_XML_BYTES = 2 * 1024 * 1024
_prepared_kept: OrderedDict[tuple[bytes, Limits], _Prepared] = OrderedDict()
_prepared_lock = threading.Lock()


class _Prepared:
    """A DocxTemplate with its parts read and an environment that compiles each source
    once (docxtpl asks it to compile the document's XML, the headers' and footers', the
    properties' text each time it renders). A kept one (_prepared) also holds its body's
    XML as docxtpl patches it before compiling, and its parts deflated (keep), so that a
    fill neither serialises and patches the body again nor deflates the parts it leaves
    unchanged (styles, numbering, theme: most of a Word file's bytes)."""

    def __init__(self, template: DocxTemplate, environment: jinja2.Environment) -> None:
        self.template = template
        self.environment = environment
        self.parts: Mapping[str, Deflated] = {}
        compiled: dict[str, jinja2.Template] = {}
        compile_source = environment.from_string

        def from_string(
            source: str | nodes.Template,
            globals: MutableMapping[str, Any] | None = None,
            template_class: type[jinja2.Template] | None = None,
        ) -> jinja2.Template:
            if globals is not None or template_class is not None or not isinstance(source, str):
                return compile_source(source, globals, template_class)
            found = compiled.get(source)
            if found is None:
                found = compiled[source] = compile_source(source)
            return found

        environment.from_string = from_string  # type: ignore[method-assign]

    @classmethod
    def parse(cls, content: bytes, limits: Limits) -> _Prepared:
        from docx.opc.exceptions import PackageNotFoundError

        template = _template(content)
        try:
            template.init_docx()  # the document's parts, read once: the render reuses them
        except (PackageNotFoundError, KeyError, ValueError):
            raise _not_a_document() from None
        return cls(template, _environment(template, limits))

    def compile_ahead(self) -> None:
        """Compile what docxtpl's render will ask for: the body's XML, each header's and
        footer's, the properties' text, patched as render patches them. Only a speed-up:
        a source missed here (or one that does not compile: the child reports it) is
        compiled in the child."""
        template, environment = self.template, self.environment
        environment.autoescape = True  # as render(autoescape=True) sets it before compiling
        body = template.patch_xml(template.get_xml())
        self._keep_body(body)
        sources = [body]
        for uri in (template.HEADER_URI, template.FOOTER_URI):
            sources += [
                template.patch_xml(template.get_part_xml(part))
                for _, part in template.get_headers_footers(uri)
            ]
        for source in sources:
            environment.from_string(_PARAGRAPH.sub(r"\n<w:p\1", source))
        properties = template.docx.core_properties
        for name in ("author", "comments", "identifier", "language", "subject", "title"):
            environment.from_string(getattr(properties, name))

    def keep(self) -> None:
        """Deflate the template's parts once (python-docx serialises them: no template code
        runs), for every fill of this copy to copy those it leaves unchanged."""
        self.parts = deflated_parts(self.template.docx.part.package)

    def _keep_body(self, body: str) -> None:
        """docxtpl's build_xml (the body serialised, patched, rendered) starting from the
        body patched here: the kept template's body is never rendered in this process, and
        the child that renders its copy does so once."""
        template = self.template

        def build_xml(context: dict[str, Any], jinja_env: jinja2.Environment | None = None) -> str:
            rendered: str = template.render_xml_part(body, template.docx._part, context, jinja_env)
            return rendered

        template.build_xml = build_xml


_PARAGRAPH = re.compile(r"<w:p([ >])")  # as docxtpl's render_xml_part splits the XML
# What reading a document that is no sound .docx raises (our template errors, python-docx's
# lookups and values, the zip's and the XML's errors, a nesting too deep) is kept from
# the job: the child reads it again and fails as it always did. Anything else (a worker's
# soft time limit among them) goes on up.
_UNREADABLE: tuple[type[BaseException], ...] = (
    RenderError,
    LookupError,
    ValueError,
    TypeError,
    AttributeError,
    OSError,
    RecursionError,
    zipfile.BadZipFile,
    SyntaxError,  # lxml's XMLSyntaxError is one
)
_UNCOMPILABLE: tuple[type[BaseException], ...] = (jinja2.TemplateError, *_UNREADABLE)


def _keepable(content: bytes) -> bool:
    """Whether the .docx is small enough to keep parsed: its parts and its XML parts."""
    with zipfile.ZipFile(io.BytesIO(content)) as archive:
        entries = archive.infolist()
    xml = sum(entry.file_size for entry in entries if entry.filename.endswith((".xml", ".rels")))
    total = sum(entry.file_size for entry in entries)
    return total <= _PREPARED_MAX_BYTES and xml <= _PREPARED_MAX_XML_BYTES


def _prepared(content: bytes, limits: Limits) -> _Prepared | None:
    """The template parsed and its tags compiled, kept for the next fill; None for one too
    large to keep or that does not parse here (the child parses it and says why)."""
    key = (hashlib.sha256(content).digest(), limits)
    with _prepared_lock:
        kept = _prepared_kept.get(key)
        if kept is not None:
            _prepared_kept.move_to_end(key)
            return kept
    try:
        if not _keepable(content):
            return None
        prepared = _Prepared.parse(content, limits)
    except _UNREADABLE:  # the child parses it again and fails as it always did
        return None
    try:
        prepared.keep()
    except _UNREADABLE:  # a part python-docx cannot serialise: the child saves it as before
        prepared.parts = {}
    try:
        prepared.compile_ahead()
    except _UNCOMPILABLE:
        pass  # the child compiles it again and reports it
    with _prepared_lock:
        _prepared_kept[key] = prepared
        while len(_prepared_kept) > _PREPARED_KEPT:
            _prepared_kept.popitem(last=False)
    return prepared


@contextmanager
def _kept_parts_writer(kept: Mapping[str, Deflated], max_bytes: int) -> Iterator[None]:
    """python-docx saving with KeptPartsZipWriter (in the forked child: its own copy of the
    module; put back all the same)."""
    from docx.opc import pkgwriter

    def kept_parts_writer(out: Any) -> Any:  # python-docx calls PhysPkgWriter(pkg_file)
        return KeptPartsZipWriter(out, kept, max_bytes)

    writer = pkgwriter.PhysPkgWriter  # type: ignore[attr-defined]
    pkgwriter.PhysPkgWriter = kept_parts_writer  # type: ignore[attr-defined, assignment]
    try:
        yield
    finally:
        pkgwriter.PhysPkgWriter = writer  # type: ignore[attr-defined]


def _fill(prepared: _Prepared, data: dict[str, Any], limits: Limits) -> bytes:
    template, environment = prepared.template, prepared.environment
    with jinja_errors(lines=False):
        try:
            template.render(_images(template, data), jinja_env=environment, autoescape=True)
        except jinja2.TemplateSyntaxError as exc:
            raise _syntax_error(exc) from None
    out = io.BytesIO()
    with _kept_parts_writer(prepared.parts, limits.max_html_bytes):
        template.save(out)
    return out.getvalue()


class DocxEngine:
    """The engine registry's entry for docx templates: it checks the source at save; a job
    fills the document and LibreOffice makes the PDF (rendering.report) instead of HTML."""

    name = DOCX_ENGINE
    label = "Word document (.docx, Jinja tags)"

    def check(self, source: str) -> None:
        digest = digest_of(source)
        if digest not in _checked:
            docx_variables(docx_file(source))
            _checked.put(digest, True)

    def render(
        self, source: str, data: dict[str, Any], limits: Limits = DEFAULT_LIMITS, **_: Any
    ) -> str:
        raise InvalidInput(
            "A docx template fills a Word document and makes no HTML; ask for its PDF instead."
        )
