"""Partials by slug: the templates a template includes (Liquid `render`/`include`, Django
and Jinja2 `include`/`extends`, Handlebars and Mustache `{{> slug}}`, EJS `include()`),
found in its source, and the bounds on them: every slug named must be given, no template
may include itself through any chain, and chains are at most MAX_DEPTH deep.

Which templates a slug names (the workspace's own, at the versions a job recorded) is the
caller's to decide: an engine is given `partials`, a mapping of slug to source, and finds
nothing else.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from rendering.errors import TemplateSyntaxError

MAX_DEPTH = 8
_QUOTED = r"""['"]([^'"\n]{1,100})['"]"""
_REFERENCES: dict[str, re.Pattern[str]] = {
    "liquid": re.compile(r"\{%-?\s*(?:render|include)\s+" + _QUOTED),
    "django": re.compile(r"\{%\s*(?:include|extends)\s+" + _QUOTED),
    "jinja2": re.compile(r"\{%-?\s*(?:include|extends|import|from)\s+" + _QUOTED),
    "handlebars": re.compile(r"\{\{~?>\s*(?:\"([^\"\n]{1,100})\"|([\w./-]{1,100}))"),
    "mustache": re.compile(r"\{\{~?>\s*([\w./-]{1,100})"),
    "ejs": re.compile(r"\binclude\(\s*" + _QUOTED),
}


def partial_names(engine: str, source: str) -> list[str]:
    """The slugs `source` includes by a literal name, in order of first use."""
    pattern = _REFERENCES.get(engine)
    if pattern is None:
        return []
    names: dict[str, None] = {}
    for found in pattern.finditer(source):
        name = next(group for group in found.groups() if group)
        names.setdefault(name, None)
    return list(names)


def partials_check(
    engine: str, source: str, partials: Mapping[str, str], *, slug: str = ""
) -> None:
    """A template error naming the slug when an include is missing, forms a cycle (a
    template including itself, directly or not: `slug` is the template's own) or nests
    deeper than MAX_DEPTH."""

    def visit(text: str, chain: tuple[str, ...]) -> None:
        for name in partial_names(engine, text):
            if name in chain:
                loop = " -> ".join((*chain[chain.index(name) :], name))
                raise TemplateSyntaxError(
                    f"Template syntax error: the partial {name!r} includes itself ({loop})."
                )
            if name not in partials:
                known = ", ".join(sorted(partials)) or "none"
                raise TemplateSyntaxError(
                    f"Template syntax error: no template {name!r} to include (this "
                    f"workspace's templates by slug; given: {known})."
                )
            if len(chain) > MAX_DEPTH:
                raise TemplateSyntaxError(
                    f"Template syntax error: partials nest deeper than {MAX_DEPTH} at {name!r}."
                )
            visit(partials[name], (*chain, name))

    visit(source, (slug or "(this template)",))
