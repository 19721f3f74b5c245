"""A starter per template engine for a new template: a short list of items written in that
engine's own syntax, with the schema and sample data it reads (the studio's "New template")."""

from __future__ import annotations

from typing import Any

from rendering.engines import ENGINE_NAMES

CSS = """body { font-family: sans-serif; color: #1f2933; }
h1 { color: #1d4ed8; }
table { border-collapse: collapse; width: 100%; }
td { border-bottom: 1px solid #e4e7eb; padding: 4px 0; }
td.amount { text-align: right; }"""

SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["title", "items"],
    "properties": {
        "title": {"type": "string"},
        "items": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["name", "amount"],
                "properties": {"name": {"type": "string"}, "amount": {"type": "string"}},
            },
        },
    },
}
SAMPLE_DATA: dict[str, Any] = {
    "title": "Order 2026-0042",
    "items": [{"name": "Widget", "amount": "12.00"}, {"name": "Gadget", "amount": "30.50"}],
}

_ROW = '<tr><td>{name}</td><td class="amount">{amount}</td></tr>'


def _loop_page(title: str, loop: tuple[str, str], name: str, amount: str) -> str:
    """The heading and a table with a row per item: every engine's starter but raw's, in
    that engine's words for the title, the loop's first and last line, and an item's fields."""
    begin, end = loop
    row = _ROW.format(name=name, amount=amount)
    return f"<h1>{title}</h1>\n<table>\n{begin}\n{row}\n{end}\n</table>"


# One loop over `items` in each engine's own words: where a newcomer sees its syntax at once.
_HTML = {
    "raw": (
        "<!-- Raw HTML: no template language, the data is not used. -->\n"
        "<h1>Order 2026-0042</h1>\n<table>\n"
        + _ROW.format(name="Widget", amount="12.00")
        + "\n</table>"
    ),
    "handlebars": _loop_page(
        "{{title}}", ("{{#each items}}", "{{/each}}"), "{{name}}", "{{amount}}"
    ),
    "mustache": _loop_page("{{title}}", ("{{#items}}", "{{/items}}"), "{{name}}", "{{amount}}"),
    "ejs": _loop_page(
        "<%= title %>",
        ("<% items.forEach(function (item) { %>", "<% }); %>"),
        "<%= item.name %>",
        "<%= item.amount %>",
    ),
}
for _name in ("jinja2", "liquid", "django"):
    _HTML[_name] = _loop_page(
        "{{ title }}",
        ("{% for item in items %}", "{% endfor %}"),
        "{{ item.name }}",
        "{{ item.amount }}",
    )


def starter(engine: str) -> dict[str, Any]:
    """The new template's source for `engine` (KeyError for an unknown one)."""
    return {
        "engine": engine,
        "html": _HTML[engine],
        "css": CSS,
        "helpers": "",
        "schema": {} if engine == "raw" else SCHEMA,
        "sample_data": {} if engine == "raw" else SAMPLE_DATA,
    }


# Every HTML engine has one (tests/reports/test_starters.py renders each); a pdf-form
# template starts from a PDF form, not a starter.
STARTER_ENGINES: tuple[str, ...] = tuple(name for name in ENGINE_NAMES if name in _HTML)
