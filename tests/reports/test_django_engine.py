"""The django engine loads the libraries Django projects use, and says which there are."""

from __future__ import annotations

import pytest

from rendering.engines import get_engine
from rendering.errors import TemplateSyntaxError
from rendering.options import parse_options
from rendering.report import TemplateSource, report_render
from reports.limits import limits_from_settings
from tests.conftest import pdf_text

django = get_engine("django")


def _render(source: str, data: dict | None = None) -> str:
    return django.render(source, data or {}, limits_from_settings())


def test_static_resolves_to_the_datas_assets_or_the_bare_path():
    source = (
        "{% load static %}<img src=\"{% static 'logo.png' %}\">|{% static 'site.css' %}|"
        "{% static 'logo.png' as logo %}{{ logo }}|{% get_static_prefix %}"
    )
    html = _render(source, {"assets": {"logo.png": "data:image/png;base64,AA"}})
    assert html == ('<img src="data:image/png;base64,AA">|site.css|data:image/png;base64,AA|')


def test_humanize_l10n_and_tz_in_one_load():
    source = (
        "{% load humanize l10n tz %}{{ n|intcomma }}|{{ 3|ordinal }}|{{ big|intword }}|"
        "{{ 4|apnumber }}|{% localize off %}{{ n }}{% endlocalize %}|"
        '{% timezone "Europe/Paris" %}in Paris{% endtimezone %}'
    )
    html = _render(source, {"n": 1234567, "big": 1200000})
    assert html == "1,234,567|3rd|1.2 million|four|1234567|in Paris"


def test_i18n_trans_and_blocktrans_pass_the_text_through():
    source = (
        '{% load i18n %}{% trans "Invoice" %}|{% translate "Total due" %}|'
        "{% blocktrans with name=customer %}Thank you, {{ name }}!{% endblocktrans %}|"
        "{% blocktranslate count n=items %}{{ n }} item{% plural %}{{ n }} items"
        "{% endblocktranslate %}"
    )
    html = _render(source, {"customer": "Ada <3", "items": 2})
    assert html == "Invoice|Total due|Thank you, Ada &lt;3!|2 items"


def test_an_unknown_library_is_an_error_naming_it_and_those_there_are():
    with pytest.raises(TemplateSyntaxError) as refused:
        django.check("<p>\n{% load static crispy_forms_tags %}")
    message = refused.value.message
    assert refused.value.line == 2
    assert "there is no library 'crispy_forms_tags'" in message
    assert "the libraries are humanize, i18n, l10n, static, tz" in message


def test_a_django_invoice_with_its_libraries_renders_into_the_pdf():
    source = (
        "{% load static humanize i18n %}<h1>{% trans 'Invoice' %} {{ number }}</h1>"
        "<p>{% blocktrans %}Total: {{ total }}{% endblocktrans %} ({{ total|intcomma }})</p>"
    )
    rendered = report_render(
        source=TemplateSource(engine="django", html=source),
        data={"number": "INV-7", "total": 1234567},
        options=parse_options({}),
        limits=limits_from_settings(),
    )
    _, text = pdf_text(rendered.content)
    assert "Invoice INV-7" in text
    assert "Total: 1234567 (1,234,567)" in text
