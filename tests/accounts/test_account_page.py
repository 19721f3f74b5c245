"""My account page: turning job mail and in-page job notices off and on again, and what
every page then loads."""

from __future__ import annotations

import pytest

from accounts.notifications import job_mail_recipient, notification_preferences

pytestmark = pytest.mark.django_db


def test_notifications_are_on_until_someone_turns_them_off(browser, user):
    page = browser.get("/account/").content.decode()
    assert 'name="email_job_finished" checked' in page
    assert 'name="browser_job_finished" checked' in page
    assert notification_preferences(user_id=user.pk).email_job_finished


def test_turning_job_mail_off_stops_it_and_says_so(browser, user):
    user.email = "ada@example.com"
    user.save()
    assert job_mail_recipient(user_id=user.pk) == "ada@example.com"
    response = browser.post("/account/", {"browser_job_finished": "on"}, follow=True)
    assert "Your notification settings are saved." in response.content.decode()
    assert 'name="email_job_finished" checked' not in response.content.decode()
    assert job_mail_recipient(user_id=user.pk) is None
    browser.post("/account/", {"email_job_finished": "on", "browser_job_finished": "on"})
    assert job_mail_recipient(user_id=user.pk) == "ada@example.com"


def test_mail_about_an_api_keys_jobs_is_off_until_asked_for(browser, user):
    user.email = "ada@example.com"
    user.save()
    page = browser.get("/account/").content.decode()
    assert 'name="email_api_jobs" checked' not in page
    assert job_mail_recipient(user_id=user.pk, by_api_key=True) is None
    assert job_mail_recipient(user_id=user.pk) == "ada@example.com"  # the browser's jobs
    browser.post(
        "/account/",
        {"email_job_finished": "on", "browser_job_finished": "on", "email_api_jobs": "on"},
    )
    assert 'name="email_api_jobs" checked' in browser.get("/account/").content.decode()
    assert job_mail_recipient(user_id=user.pk, by_api_key=True) == "ada@example.com"
    browser.post("/account/", {"email_api_jobs": "on"})  # job mail off: none at all
    assert job_mail_recipient(user_id=user.pk, by_api_key=True) is None


def test_the_page_says_where_mail_goes_or_that_there_is_no_address(browser, user):
    assert "You have no email address on file" in browser.get("/account/").content.decode()
    user.email = "ada@example.com"
    user.save()
    assert "ada@example.com" in browser.get("/account/").content.decode()


def test_every_page_loads_the_job_notices_unless_turned_off(browser, user):
    for path in ("/", "/reports/new/", "/keys/", "/account/"):
        page = browser.get(path).content.decode()
        assert "js/notify.js" in page, path
        assert "data-toasts" in page, path
        assert "data-page-time=" in page, path
    browser.post("/account/", {"email_job_finished": "on"})  # notices off
    page = browser.get("/").content.decode()
    assert "js/notify.js" not in page
    assert "data-toasts" not in page


def test_the_account_page_needs_a_sign_in(client):
    response = client.get("/account/")
    assert response.status_code == 302
    assert "/login/" in response["Location"]


def test_the_user_name_in_the_top_bar_links_to_the_account(browser, user):
    assert 'href="/account/"' in browser.get("/").content.decode()


def test_the_site_icon_is_served_where_browsers_look_for_it(client):
    answer = client.get("/favicon.ico")
    assert answer.status_code == 301
    icon = client.get(answer["Location"])
    assert icon.status_code == 200
    assert b"<svg" in b"".join(icon.streaming_content)
