"""Liquid as Shopify and PDFMonkey have it: lenient defaults, options.engine, Shopify's filters."""

from __future__ import annotations

import datetime as dt

import pytest

from rendering.engines import engine_render, get_engine
from rendering.engines.liquid import LiquidEngine
from rendering.engines.settings import EngineSettings
from rendering.errors import InvalidInput, TemplateRuntimeError
from rendering.options import parse_options
from rendering.report import TemplateSource, report_render
from reports.limits import limits_from_settings
from tests.conftest import pdf_text

liquid = get_engine("liquid")


def _render(source: str, data: dict | None = None, **settings: object) -> str:
    return LiquidEngine().render(
        source, data or {}, limits_from_settings(), settings=EngineSettings(**settings)
    )


def test_undefined_names_render_empty_and_output_is_not_escaped_by_default():
    # A real Order Printer receipt: no billing address on a pickup order.
    source = "<p>{{ billing_address.name }}|{{ order.note | default: 'none' }}|{{ html }}</p>"
    html = liquid.render(source, {"html": "<b>Gift</b>"}, limits_from_settings())
    assert html == "<p>|none|<b>Gift</b></p>"


def test_nil_and_undefined_names_are_blank_as_in_shopify():
    source = (
        "{% if billing_address != blank %}bill{% else %}no billing address{% endif %}|"
        "{% if note == blank %}no note{% endif %}|{% if po == blank %}no po{% endif %}|"
        "{% if sku != blank %}{{ sku }}{% endif %}"
    )
    html = liquid.render(source, {"note": None, "po": "", "sku": "MUG-1"}, limits_from_settings())
    assert html == "no billing address|no note|no po|MUG-1"


def test_strict_undefined_and_autoescape_are_per_template_settings():
    with pytest.raises(TemplateRuntimeError, match="'billing_address' is undefined"):
        _render("{{ billing_address.name }}", strict_undefined=True)
    assert _render("{{ h }}|{{ h | safe }}", {"h": "<b>"}, autoescape=True) == "&lt;b&gt;|<b>"


def test_options_engine_is_checked_and_kept_in_the_job_options():
    options = parse_options({"engine": {"strict_undefined": True, "money_format": "€{{amount}}"}})
    assert options.engine == EngineSettings(strict_undefined=True, money_format="€{{amount}}")
    assert options.as_dict()["engine"] == {"strict_undefined": True, "money_format": "€{{amount}}"}
    assert parse_options(options.as_dict()) == options
    with pytest.raises(InvalidInput, match="known: autoescape"):
        parse_options({"engine": {"strict": True}})
    with pytest.raises(InvalidInput, match="autoescape must be true or false"):
        parse_options({"engine": {"autoescape": "yes"}})


def test_engine_settings_reach_liquid_through_engine_render():
    limits = limits_from_settings()
    settings = EngineSettings(strict_undefined=True)
    with pytest.raises(TemplateRuntimeError, match="'x' is undefined"):
        engine_render("liquid", "{{ x }}", {}, limits, settings=settings)
    assert engine_render("liquid", "[{{ x }}]", {}, limits) == "[]"


def test_money_family_takes_integer_cents_in_the_shops_format():
    source = (
        "{{ 123456 | money }}|{{ 123456 | money_with_currency }}|"
        "{{ 123456 | money_without_currency }}|{{ 150000 | money_without_trailing_zeros }}|"
        "{{ 150050 | money_without_trailing_zeros }}|{{ '1999' | money }}|{{ nothing | money }}"
    )
    assert _render(source) == "$1,234.56|$1,234.56 USD|1,234.56|$1,500|$1,500.50|$19.99|"
    shop = {"money_format": "{{amount_with_comma_separator}} €", "currency": "EUR"}
    assert _render("{{ 123456 | money }}|{{ 5 | money_with_currency }}", {"shop": shop}) == (
        "1.234,56 €|0,05 € EUR"
    )


def test_money_format_from_the_template_settings_when_the_data_has_no_shop():
    html = _render(
        "{{ 99900 | money }}|{{ 99900 | money_with_currency }}|"
        "{{ 99900 | money_without_currency }}",
        money_format="{{amount_no_decimals_with_space_separator}} kr",
        money_with_currency_format="{{amount_no_decimals_with_space_separator}} kr SEK",
    )
    assert html == "999 kr|999 kr SEK|999"


def test_money_of_text_that_is_not_cents_names_the_filter():
    with pytest.raises(TemplateRuntimeError, match="money: 'twelve' is not an amount in cents"):
        _render("{{ 'twelve' | money }}")


def test_image_and_asset_filters_make_strings_and_fetch_nothing():
    data = {
        "line_item": {"image": {"src": "data:image/png;base64,iVBO"}, "title": 'A "B" <c>'},
        "assets": {"logo.png": "data:image/png;base64,LOGO"},
    }
    source = (
        "{{ line_item | img_url: '100x100' }}|{{ line_item.image | image_url: width: 80 }}|"
        "{{ line_item | img_tag: line_item.title }}|{{ 'logo.png' | asset_url }}|"
        "{{ 'other.css' | asset_url }}|{{ nothing | img_tag }}"
    )
    assert _render(source, data) == (
        "data:image/png;base64,iVBO|data:image/png;base64,iVBO|"
        '<img src="data:image/png;base64,iVBO" alt="A &#34;B&#34; &lt;c&gt;">|'
        "data:image/png;base64,LOGO|other.css|"
    )


def test_handleize_pluralize_weight_and_date_now():
    source = (
        "{{ 'Blue Shirt — XL!' | handleize }}|{{ 'A b' | handle }}|"
        "{{ 1 | pluralize: 'item', 'items' }}|{{ 3 | pluralize: 'item', 'items' }}|"
        "{{ 1250 | weight_with_unit }}|{{ 'now' | date: '%Y' }}|"
        "{{ '2026-03-01T10:00:00Z' | date: '%B %-d, %Y' }}|"
        "{{ 'shopify_payments' | payment_method }}"
    )
    year = dt.datetime.now(tz=dt.UTC).year
    assert _render(source) == (
        f"blue-shirt-xl|a-b|item|items|1.25 kg|{year}|March 1, 2026|Shopify Payments"
    )


def test_date_takes_shopifys_named_formats_and_names_the_known_ones():
    data = {"order": {"created_at": "2018-12-31 13:00:00 -0500"}}
    rendered = _render(
        "{{ order.created_at | date: format: 'abbreviated_date' }}|"
        "{{ order.created_at | date: format: 'basic' }}|"
        "{{ order.created_at | date: format: 'date' }}|"
        "{{ order.created_at | date: format: 'date_at_time' }}|"
        "{{ order.created_at | date: format: 'on_date' }}|"
        "{{ order.created_at | date }}|{{ order.created_at | date: '%d.%m.%Y' }}|"
        "{{ order.missing | date: format: 'basic' }}",
        data,
    )
    assert rendered == (
        "Dec 31, 2018|12/31/2018|December 31, 2018|December 31, 2018 at 1:00 pm|"
        "on Dec 31, 2018|Monday, December 31, 2018 at 1:00 pm -0500|31.12.2018|"
    )
    with pytest.raises(TemplateRuntimeError, match=r"unknown format 'fancy'.*abbreviated_date"):
        _render("{{ order.created_at | date: format: 'fancy' }}", data)


def test_a_shopify_receipt_renders_into_the_pdf_with_its_settings():
    source = (
        "<h1>Order {{ order.name }}</h1>{% for li in order.line_items %}"
        "<p>{{ li.quantity }} {{ li.quantity | pluralize: 'item', 'items' }} {{ li.title }} "
        "{{ li.price | money }}</p>{% endfor %}<p>{{ billing_address.name }}Total "
        "{{ order.total_price | money_with_currency }}</p>"
    )
    data = {
        "order": {
            "name": "#1001",
            "total_price": 4550,
            "line_items": [{"quantity": 2, "title": "Mug", "price": 2275}],
        }
    }
    rendered = report_render(
        source=TemplateSource(engine="liquid", html=source),
        data=data,
        options=parse_options({"engine": {"money_format": "€{{amount_with_comma_separator}}"}}),
        limits=limits_from_settings(),
    )
    _, text = pdf_text(rendered.content)
    assert "Order #1001" in text
    assert "2 items Mug €22,75" in text
    assert "Total €45,50 USD" in text
