"""The template studio in real Chromium on the live stack: typing updates the preview, a
syntax error shows at its line, saving makes a draft no job renders, publishing makes a new
job render the new text, the diff marks the changed page. Screenshots at 1366x768 and
1920x1080 go to UI_SHOTS_DIR; the studio guide's pictures in docs/img are copies of them
(a test never writes into the working copy)."""

from __future__ import annotations

import httpx
import pytest
from playwright.sync_api import expect

from accounts.services import api_key_create
from reports.models import ReportTemplate
from reports.samples import template_sync_samples
from reports.services import template_create, template_draft_save, template_publish
from reports.starters import STARTER_ENGINES
from tests.browser.conftest import save_shot, sign_in
from tests.browser.test_csp import RECORD_VIOLATIONS
from tests.conftest import pdf_text
from tests.e2e.conftest import wait_for_status

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]
HTML = """<h1>Invoice {{number}}</h1>
<p>Bill to {{customer}}</p>
<p>Total due: {{total}} EUR</p>"""
CSS = "h1 { color: #1d4ed8; font-family: sans-serif; } p { font-family: sans-serif; }"
SAMPLE = {"number": "2026-0042", "customer": "Zephyr Widgets", "total": "1,250.00"}


def _rendered_count(page) -> int:
    return int(page.locator("[data-pages]").get_attribute("data-rendered") or 0)


def _wait_rendered_after(page, count: int) -> None:
    # Selectors, not wait_for_function: the page's CSP forbids evaluating strings.
    page.wait_for_selector(f"[data-pages][data-rendered]:not([data-rendered='{count}'])")


def _text_width(page, text: str) -> float:
    """How wide `text` is in the studio controls' font (a probe span, measured)."""
    page.locator(".studio-controls").evaluate(
        "(bar, text) => { const s = document.createElement('span'); s.id = 'probe';"
        " s.style.fontSize = getComputedStyle(bar.querySelector('select')).fontSize;"
        " s.textContent = text; bar.append(s); }",
        text,
    )
    box = page.locator("#probe").bounding_box()
    page.locator("#probe").evaluate("s => s.remove()")
    return box["width"]


def _screenshot(page, name: str) -> None:
    for close in page.locator(".toast-close").all():  # job notices are not the studio's
        close.click()
    save_shot(page, name)


def _wait_pill(page, text: str) -> None:
    page.locator("[data-version-pill]", has_text=text).wait_for()


def _job_text(live_stack, key: str) -> str:
    with httpx.Client(base_url=live_stack.base_url, headers={"X-API-Key": key}, timeout=30) as http:
        submitted = http.post(
            "/api/v1/generate-pdf-async", json={"template": "studio-invoice", "data": SAMPLE}
        )
        assert submitted.status_code == 202, submitted.json()
        job = wait_for_status(http, submitted.json()["status_url"], until={"completed", "failed"})
        assert job["status"] == "completed", job
        return pdf_text(httpx.get(job["pdf_url"], timeout=30).content)[1]


def test_typing_previews_errors_show_at_their_line_and_publish_goes_live(page, person, live_stack):
    template = template_create(
        owner=person,
        name="Studio invoice",
        slug="studio-invoice",
        html=HTML,
        css=CSS,
        sample_data=SAMPLE,
        renderer="weasyprint",
    )
    _, key = api_key_create(user=person, workspace=template.workspace, name="studio")
    page.add_init_script(RECORD_VIOLATIONS)
    sign_in(page)
    page.set_viewport_size({"width": 1366, "height": 768})
    page.goto("/templates/studio-invoice/edit")
    page.wait_for_selector("[data-studio][data-ready]")
    _wait_rendered_after(page, 0)
    first = page.locator("[data-preview-page='1']").get_attribute("src")
    assert page.locator("[data-version-pill]").inner_text() == "Published v1"

    # CodeMirror's styles live in shadow roots' adopted sheets: no CSP violation.
    assert page.evaluate("window.__cspViolations") == []

    # Typing: the preview renders again, and differs.
    before = _rendered_count(page)
    editor = page.locator("[data-editor='html'] .cm-content")
    editor.click()
    page.keyboard.press("Control+End")
    page.keyboard.type("\n<p>Payable within 30 days.")  # the editor closes the tag
    _wait_rendered_after(page, before)
    assert page.locator("[data-preview-page='1']").get_attribute("src") != first
    assert page.locator("[data-save-state]").inner_text() == "Unsaved changes"
    assert (
        "Payable within 30 days.</p>"
        in page.locator("[data-editor='html'] .cm-content").inner_text()
    )

    # A syntax error: shown in the problem bar with its line, and marked in the editor.
    page.keyboard.type("\n{{#if paid}}")
    page.wait_for_selector("[data-problem]:not([hidden])")
    assert "Template, line 5" in page.locator("[data-problem]").inner_text()
    page.wait_for_selector("[data-editor='html'] .cm-lintRange-error")
    for _ in range(len("\n{{#if paid}}")):
        page.keyboard.press("Backspace")
    page.wait_for_selector("[data-problem]", state="hidden")

    # Ctrl-S saves a draft: jobs still render the published text.
    page.keyboard.press("Control+s")
    _wait_pill(page, "Draft v2")
    template.refresh_from_db()
    assert (template.published_version.number, template.draft_version.number) == (1, 2)
    assert "Payable within 30 days" not in _job_text(live_stack, key)
    _screenshot(page, "studio-1366.png")

    # The diff of published and draft marks the changed page.
    page.locator("[data-diff]").click()
    page.wait_for_selector(".studio-diff-row")
    assert int(page.locator(".studio-diff-row").first.get_attribute("data-changed-pixels")) > 0
    assert "+<p>Payable within 30 days.</p>" in page.locator("[data-source-diff]").inner_text()
    page.set_viewport_size({"width": 1920, "height": 1080})
    page.wait_for_timeout(300)
    _screenshot(page, "studio-diff-1920.png")
    page.locator("[data-diff-close]").click()

    # Publish: a new job renders the new text.
    page.locator("[data-publish]").click()
    _wait_pill(page, "Published v2")
    assert "Payable within 30 days" in _job_text(live_stack, key)
    _screenshot(page, "studio-1920.png")

    # Roll back asks first: answering no changes nothing.
    questions: list[str] = []

    def answer(dialog, accept: bool) -> None:
        questions.append(dialog.message)
        dialog.accept() if accept else dialog.dismiss()

    page.once("dialog", lambda dialog: answer(dialog, accept=False))
    page.locator("[data-rollback-version]").select_option("1")
    page.locator("[data-rollback]").click()
    page.wait_for_timeout(300)
    assert questions
    assert "Roll back to v1?" in questions[0]
    assert ReportTemplate.objects.get(pk=template.pk).published_version.number == 2

    # Roll back to v1: new jobs render the old text again, and the editor and preview show
    # v1 (not the v2 just replaced, which one click on Publish would have put back).
    before = _rendered_count(page)
    page.once("dialog", lambda dialog: answer(dialog, accept=True))
    page.locator("[data-rollback]").click()
    _wait_pill(page, "Published v1")
    assert "The editor and preview will show v1." in questions[1]
    assert "Payable within 30 days" not in _job_text(live_stack, key)
    assert ReportTemplate.objects.get(pk=template.pk).published_version.number == 1
    assert (
        "Payable within 30 days"
        not in page.locator("[data-editor='html'] .cm-content").inner_text()
    )
    _wait_rendered_after(page, before)
    assert page.locator("[data-save-state]").inner_text() == "Rolled back: v1 is live"
    assert page.locator("[data-publish]").is_disabled()
    assert page.locator("[data-save]").is_disabled()


def test_a_new_template_from_a_sample_opens_in_the_studio(page, person, live_stack):
    template_sync_samples()
    sign_in(page)
    page.goto("/reports/new/")
    page.get_by_role("link", name="New template").click()
    page.get_by_label("Name", exact=True).fill("My invoice")
    page.locator("input[name=sample][value=invoice]").check()
    page.get_by_role("button", name="Create and open the studio").click()
    page.wait_for_url("**/templates/my-invoice/edit")
    page.wait_for_selector("[data-studio][data-ready]")
    assert page.locator("[data-version-pill]").inner_text() == "Published v1"
    mine = ReportTemplate.objects.get(slug="my-invoice", workspace__isnull=False)
    builtin = ReportTemplate.objects.get(slug="invoice", workspace__isnull=True)
    assert (mine.html, mine.sample_data) == (builtin.html, builtin.sample_data)
    _wait_rendered_after(page, 0)
    assert page.locator("[data-preview-page='1']").count() == 1


@pytest.mark.parametrize("engine", ["jinja2", "ejs"])
def test_a_new_template_from_an_engines_starter_previews_without_a_helpers_tab(
    page, person, live_stack, engine
):
    template_sync_samples()
    sign_in(page)
    page.goto("/templates/new")
    starters = page.locator("[data-starters] input[name=sample]")
    offered = [starters.nth(i).get_attribute("value") for i in range(starters.count())]
    assert offered == [f"starter:{name}" for name in STARTER_ENGINES]
    # Each choice is one row, the radio beside its name (the page loads the studio's
    # stylesheet; without it each radio stood alone, full width, above its label).
    choice = page.locator("[data-starters] .studio-sample").first
    row, radio = choice.bounding_box(), choice.locator("input").bounding_box()
    assert radio["width"] < 40
    assert row["height"] < 60
    page.get_by_label("Name", exact=True).fill(f"Order {engine}")
    page.locator(f"input[name=sample][value='starter:{engine}']").check()
    page.get_by_role("button", name="Create and open the studio").click()
    page.wait_for_url(f"**/templates/order-{engine}/edit")
    page.wait_for_selector("[data-studio][data-ready]")
    assert ReportTemplate.objects.get(slug=f"order-{engine}").engine == engine
    _wait_rendered_after(page, 0)
    expect(page.locator("[data-problem]")).to_be_hidden()
    expect(page.locator("[data-tab='helpers']")).to_be_hidden()
    expect(page.locator("[data-tab='schema']")).to_be_visible()


def test_a_builtin_says_it_is_read_only_and_new_template_copies_it(page, person, live_stack):
    template_sync_samples()
    sign_in(page)
    page.set_viewport_size({"width": 1366, "height": 768})
    page.goto("/templates/invoice/edit")
    page.wait_for_selector("[data-studio][data-ready]")
    note = page.locator("[data-builtin-note]")
    expect(note).to_contain_text("A built-in sample: read-only here.")
    expect(page.locator("[data-save]")).to_be_hidden()
    expect(page.locator("[data-tab='helpers']")).to_be_visible()  # a Handlebars sample
    _screenshot(page, "studio-builtin-1366.png")
    note.get_by_role("link", name="New template").click()
    page.wait_for_url("**/templates/new?sample=invoice")
    expect(page.locator("input[name=sample][value=invoice]")).to_be_checked()


def test_the_version_select_is_not_cut_off_at_1366(page, person, live_stack):
    template = template_create(
        owner=person, name="Studio invoice", slug="studio-invoice", html=HTML, css=CSS
    )
    for number in range(2, 12):  # two-digit version numbers: the widest option text
        template_draft_save(template=template, by=person, html=f"{HTML}<p>v{number}</p>")
        template_publish(template=template, by=person)
    sign_in(page)
    page.set_viewport_size({"width": 1366, "height": 768})
    page.goto("/templates/studio-invoice/edit")
    page.wait_for_selector("[data-studio][data-ready]")
    bar = page.locator(".studio-bar").bounding_box()
    for selector in ("[data-rollback-version]", "[data-publish]", "[data-diff]"):
        box = page.locator(selector).bounding_box()
        assert box is not None
        assert box["x"] >= 0
        assert box["x"] + box["width"] <= bar["x"] + bar["width"], selector
    # Each select is wider than its chosen option's text (plus the arrow): nothing cut off.
    for selector in ("[data-rollback-version]", "[data-renderer]", "[data-page-size]"):
        select = page.locator(selector)
        text = select.locator("option:checked").inner_text()
        width = select.bounding_box()["width"]
        assert width >= _text_width(page, text) + 24, (selector, text, width)
    _screenshot(page, "studio-bar-1366.png")
