"""The pages' stage labels (static/js/common.js) name exactly the stages the server sets."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings

from jobs import transitions
from jobs.worker import execution
from rendering.engines.docx import docx_source
from tests.factories import PdfJobFactory
from tests.rendering.docx_files import INVOICE_DATA, invoice_docx

# A Word template's job converts with the worker's LibreOffice (a process of its own).
pytestmark = [pytest.mark.django_db, pytest.mark.process]

COMMON_JS = Path(settings.BASE_DIR) / "static" / "js" / "common.js"


def _labelled_stages() -> set[str]:
    block = re.search(r"const STAGE_LABELS = \{(.*?)\n\};", COMMON_JS.read_text(), re.S)
    assert block is not None
    return {key.strip('"') for key in re.findall(r'^\s*("?[\w]*"?):', block.group(1), re.M)}


def test_every_stage_the_server_sets_has_a_label_and_no_label_is_unused(
    user, monkeypatch, settings
):
    settings.PDF_PROGRESS_INTERVAL_MS = 0  # every stage written, none coalesced away
    seen: list[str] = []
    real = transitions._transition

    def recording(*args, **fields):
        job = real(*args, **fields)
        if job is not None:
            seen.append(job.stage)
        return job

    monkeypatch.setattr(transitions, "_transition", recording)
    charts = '{"mark": "bar", "data": {"values": [{"a": 1}]}, "encoding": {"x": {"field": "a"}}}'
    done = PdfJobFactory(
        owner=user,
        html_template=f'<h1>Hi</h1><script type="application/vnd.vegalite+json">{charts}</script>',
    )
    execution.job_execute(job_id=done.job_id)
    word = PdfJobFactory(
        owner=user,
        engine="docx",
        html_template=docx_source(invoice_docx()),
        data=INVOICE_DATA | {"logo": ""},
    )
    converted = execution.job_execute(job_id=word.job_id)
    assert converted.status == "completed", converted.error
    failed = PdfJobFactory(owner=user)
    transitions.job_claim(job_id=failed.job_id, worker="w")
    transitions.job_reschedule(job_id=failed.job_id, error="x", code="transient")
    transitions.job_claim(job_id=failed.job_id, worker="w")
    transitions.job_fail(job_id=failed.job_id, error="x", code="x")
    transitions.job_requeue_failed(job_id=failed.job_id)
    transitions.job_mark_cancelled(job_id=failed.job_id)
    emitted = {"", *seen}  # "" is a new job's stage
    assert _labelled_stages() == emitted
    assert "pages_done" not in COMMON_JS.read_text()  # the server sends page_count only
