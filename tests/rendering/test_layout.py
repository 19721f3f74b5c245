"""Modern CSS laid out as a browser would: word boxes read back from the PDF do not
overlap where the HTML has no overlap; xhtml2pdf's unsplittable layouts fail once, plainly."""

from __future__ import annotations

import pytest

from rendering.errors import LayoutFailed
from tests.conftest import pdf_text
from tests.rendering.conftest import overlapping, render, word_boxes

INVOICE = """
<style>
  :root { --accent: #0b6e4f; }
  .top { display: flex; justify-content: space-between; gap: 24px; }
  .top h1 { color: var(--accent); margin: 0; }
  .grid { display: grid; grid-template-columns: 3fr 1fr 1fr 1fr; gap: 4px 12px; margin-top: 24px; }
  .grid div { padding: 2px 0; }
  .totals { display: flex; flex-direction: column; align-items: flex-end; margin-top: 16px; }
  .stamp { position: fixed; top: 45%; left: 25%; transform: rotate(-30deg); opacity: 0.15;
           font-size: 48px; }
</style>
<div class="top"><h1>Invoice INV-2041</h1>
  <div>Northwind Trading<br>12 Harbour Street<br>Lisbon</div></div>
<div class="grid">
  <div><b>Description</b></div><div><b>Qty</b></div><div><b>Price</b></div><div><b>Amount</b></div>
  {{#each items}}<div>{{name}}</div><div>{{qty}}</div>
    <div>{{price}}</div><div>{{amount}}</div>{{/each}}
</div>
<div class="totals">
  <div>Subtotal 1,230.00</div><div>VAT 283.00</div><div><b>Total 1,513.00</b></div></div>
"""
ITEMS = [
    {"name": f"Consulting block {i}", "qty": i, "price": "100.00", "amount": f"{i * 100}.00"}
    for i in range(1, 9)
]


def test_flex_and_grid_lay_out_without_overlapping_words(modern_renderer):
    rendered = render(modern_renderer, INVOICE, data={"items": ITEMS})
    boxes = word_boxes(rendered.content)
    assert len(boxes) > 60
    assert overlapping(boxes) == []
    text = pdf_text(rendered.content)[1]
    assert "Consulting block 8" in text
    # The grid puts each item's cells on one line, left to right.
    block = next(box for box in boxes if box.text == "block")
    row = sorted((b for b in boxes if abs(b.bottom - block.bottom) < 5), key=lambda b: b.left)
    assert [b.text for b in row] == ["Consulting", "block", "1", "1", "100.00", "100.00"]


def test_the_overlap_check_sees_words_printed_over_each_other(modern_renderer):
    # Guards the test above: two words drawn at the same place are reported.
    rendered = render(
        modern_renderer,
        '<div style="position: relative"><span>OVERLAID</span>'
        '<span style="position: absolute; left: 4px; top: 0">COVERING</span></div>',
    )
    assert overlapping(word_boxes(rendered.content)) != []


def test_margin_boxes_number_pages_on_weasyprint():
    rendered = render(
        "weasyprint",
        "<p>one</p>{{pageBreak}}<p>two</p>",
        css="@page { @bottom-right { content: 'p. ' counter(page) '/' counter(pages); } }",
    )
    assert "p. 2/2" in pdf_text(rendered.content)[1]


def test_an_unsplittable_block_fails_once_with_a_plain_message():
    with pytest.raises(LayoutFailed) as failure:
        render("xhtml2pdf", '<table><tr><td style="height: 400mm">tall</td></tr></table>')
    message = failure.value.message
    assert failure.value.code == "layout_error"
    assert "could not place a table row" in message
    assert "weasyprint or chromium" in message
    assert "0x" not in message
    assert "<" not in message


def test_the_same_block_splits_on_the_modern_renderers(modern_renderer):
    rendered = render(
        modern_renderer, '<table><tr><td style="height: 400mm">tall</td></tr></table>'
    )
    assert "tall" in pdf_text(rendered.content)[1]
