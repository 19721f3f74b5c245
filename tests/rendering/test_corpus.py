"""Templates in the shapes other tools give them (tests/rendering/corpus, see its README),
each with data in the shape its tool passes, render right into a PDF."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from rendering.options import parse_options
from rendering.report import TemplateSource, report_render
from reports.limits import limits_from_settings

CORPUS = Path(__file__).with_name("corpus")
CASES = sorted(path.stem for path in CORPUS.glob("*.json"))


def _pdf_text(content: bytes) -> str:
    text = subprocess.run(
        ["pdftotext", "-", "-"], input=content, capture_output=True, check=True
    ).stdout.decode()
    return re.sub(r"\s+", " ", text)


@pytest.mark.parametrize("name", CASES)
def test_a_corpus_template_renders_right_into_the_pdf(name):
    case = json.loads((CORPUS / f"{name}.json").read_text(encoding="utf-8"))
    (source,) = [path for path in CORPUS.glob(f"{name}.*") if path.suffix != ".json"]
    rendered = report_render(
        source=TemplateSource(
            engine=case["engine"],
            html=source.read_text(encoding="utf-8"),
            helpers=case.get("helpers", ""),
        ),
        data=case["data"],
        options=parse_options(case.get("options")),
        limits=limits_from_settings(),
    )
    text = _pdf_text(rendered.content)
    assert [expected for expected in case["expect"] if expected not in text] == [], text
    assert [absent for absent in case.get("absent", []) if absent in text] == []
