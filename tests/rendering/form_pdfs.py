"""Fillable PDF forms for the pdf-form tests, drawn with reportlab's AcroForm support: a
text field, a checkbox, a radio group and a choice, as government and insurance forms
have them."""

from __future__ import annotations

import io

from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas


def membership_form() -> bytes:
    out = io.BytesIO()
    page = canvas.Canvas(out, pagesize=A4)
    page.setTitle("Membership application")
    form = page.acroForm
    page.drawString(50, 800, "Full name:")
    form.textfield(name="full_name", x=140, y=790, width=250, height=20)
    page.drawString(50, 760, "Member before:")
    form.checkbox(name="returning", x=140, y=755, size=15, checked=False, buttonStyle="check")
    page.drawString(50, 720, "Plan:")
    form.radio(name="plan", value="basic", x=140, y=715, size=15, selected=False)
    form.radio(name="plan", value="pro", x=180, y=715, size=15, selected=False)
    page.drawString(50, 680, "Country:")
    form.choice(
        name="country", options=["France", "Japan", "Peru"], value="France",
        x=140, y=675, width=120, height=20,
    )  # fmt: skip
    page.showPage()
    page.save()
    return out.getvalue()


def plain_pdf() -> bytes:
    out = io.BytesIO()
    page = canvas.Canvas(out, pagesize=A4)
    page.drawString(50, 800, "No fields here")
    page.showPage()
    page.save()
    return out.getvalue()


def pages_pdf(count: int, *, title: str = "") -> bytes:
    """A plain PDF of `count` pages, each saying its number."""
    out = io.BytesIO()
    page = canvas.Canvas(out, pagesize=A4)
    if title:
        page.setTitle(title)
    for number in range(1, count + 1):
        page.drawString(50, 800, f"Page number {number}")
        page.showPage()
    page.save()
    return out.getvalue()
