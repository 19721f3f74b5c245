"""A fresh clone: the real `manage.py seed_demo` on an empty database, then signing in as
demo/demo through the real login form, requesting a sample from its form, watching it
finish live and downloading it."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from tests.browser.conftest import shoot
from tests.conftest import pdf_text

pytestmark = [pytest.mark.e2e, pytest.mark.browser, pytest.mark.timeout(120)]


def test_seed_demo_then_demo_signs_in_through_the_login_form(
    page, live_stack, stack_env, transactional_db, tmp_path
):
    assert not get_user_model().objects.exists()  # an empty database, as on a fresh clone
    done = subprocess.run(
        [sys.executable, str(settings.BASE_DIR / "manage.py"), "seed_demo"],
        env={**stack_env, "VAR_DIR": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "Demo user: demo / password demo" in done.stdout

    page.goto("/")
    page.get_by_label("Username").fill("demo")
    page.get_by_label("Password").fill("demo")
    shoot(page, "00-demo-sign-in")
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("heading", name="My jobs")).to_be_visible()
    expect(page.get_by_role("alert")).to_have_count(0)

    page.get_by_role("link", name="New report").first.click()
    page.get_by_role("link", name=re.compile("^Invoice")).click()
    page.wait_for_selector("form[data-ready=true]")
    page.get_by_role("button", name="Create PDF").click()  # from the generated form
    page.wait_for_url(re.compile(r"/jobs/[0-9a-f-]{36}/$"))
    expect(page.locator(".page-head [data-field=status]")).to_have_text("Completed", timeout=60_000)
    with page.expect_download() as download_info:
        page.get_by_role("link", name="Download PDF").click()
    assert "Acme Analytics" in pdf_text(Path(download_info.value.path()).read_bytes())[1]
