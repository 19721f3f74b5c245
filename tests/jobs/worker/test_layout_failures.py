"""A layout the renderer cannot finish fails the job once, as `layout_error`, with a plain
message; characters no bundled font has complete the job with a warning naming them.

Chromium has no such case: Blink lays out any document (what does not fit is clipped or
overflows, never refused), so its failures are a crashed page (memory, a limit) or time
(a limit), both tested in tests/rendering/test_hostile.py."""

from __future__ import annotations

import re

import pytest

from jobs.models import DeadLetter, JobStatus, PdfJob
from jobs.worker import execution
from tests.factories import PdfJobFactory

pytestmark = pytest.mark.django_db

# What a message for people never shows: object reprs, memory addresses, tracebacks, paths.
_LEAKS = re.compile(r"<\w|0x[0-9a-f]{4,}|Traceback|/usr/|/work/|site-packages|\.py\b")


def _failed_once(job_id) -> PdfJob:
    failed = execution.job_execute(job_id=job_id)
    assert failed.status == JobStatus.FAILED
    assert failed.error_code == "layout_error"
    assert failed.attempts == 1  # permanent: not retried as a transient error
    assert not DeadLetter.objects.exists()
    assert _LEAKS.search(failed.error) is None, failed.error
    return failed


def test_an_unsplittable_xhtml2pdf_block_fails_the_job_once(user):
    job = PdfJobFactory(
        owner=user,
        renderer="xhtml2pdf",
        html_template='<table><tr><td style="height: 400mm">tall</td></tr></table>',
    )
    failed = _failed_once(job.job_id)
    assert "could not place a table row" in failed.error
    assert "weasyprint or chromium renderer" in failed.error


def test_a_layout_weasyprint_cannot_finish_fails_the_job_once(user):
    # A real WeasyPrint 70 failure, no stand-in: a list marker laid out as a flex container
    # has no min-content width rule ("min-content width for TextBox not handled yet").
    job = PdfJobFactory(
        owner=user,
        renderer="weasyprint",
        html_template='<style>li::marker { content: "*"; display: flex; }</style>'
        "<ul><li>first</li><li>second</li></ul>",
    )
    failed = _failed_once(job.job_id)
    assert failed.error.startswith("WeasyPrint could not lay the document out.")
    assert "chromium renderer" in failed.error
    assert "TextBox" not in failed.error


def test_spacing_weasyprint_cannot_measure_fails_the_job_once(user):
    # WeasyPrint 70 raises OverflowError (no error of its own) for a spacing this large.
    job = PdfJobFactory(
        owner=user,
        renderer="weasyprint",
        html_template='<p style="letter-spacing: -1e9px; word-spacing: -1e9px">a b c</p>',
    )
    failed = _failed_once(job.job_id)
    assert failed.error.startswith("WeasyPrint could not lay the document out.")


def test_the_same_list_renders_without_the_marker_rule(user):
    # Guards the test above: only the flex marker breaks WeasyPrint, not the list itself.
    job = PdfJobFactory(
        owner=user, renderer="weasyprint", html_template="<ul><li>first</li></ul>", data={}
    )
    assert execution.job_execute(job_id=job.job_id).status == JobStatus.COMPLETED


@pytest.mark.parametrize("renderer", ["xhtml2pdf", "weasyprint"])
def test_characters_no_bundled_font_has_complete_with_one_warning(user, renderer):
    job = PdfJobFactory(
        owner=user,
        renderer=renderer,
        html_template="<p>Ελληνικά 漢字 한국어 {{glyph}}</p>",
        data={"glyph": "\U00013000"},
    )
    done = execution.job_execute(job_id=job.job_id)
    assert done.status == JobStatus.COMPLETED
    assert len(done.warnings) == 1, done.warnings
    assert "U+13000 EGYPTIAN HIEROGLYPH A001" in done.warnings[0]
