"""Single sign-on end to end: the authorization-code flow with PKCE through HTTP, between the
service (the live server) and a real OpenID provider (oidc-provider on node): our sign-in
page, the provider's login and consent forms, the callback; then the session's user, the
workspace their email domain joined and its role."""

from __future__ import annotations

from html.parser import HTMLParser
from urllib.parse import parse_qs, urljoin, urlsplit

import httpx
import pytest
from django.contrib.auth.models import User
from django.contrib.sessions.backends.db import SessionStore

from tests.factories import UserFactory
from tests.processes import free_port
from workspaces.models import DomainJoin, Membership, Role
from workspaces.services import workspace_create, workspace_sso_set

pytestmark = pytest.mark.django_db(transaction=True)


class _Form(HTMLParser):
    """The first form of a page: its action and its inputs' values."""

    def __init__(self) -> None:
        super().__init__()
        self.action: str | None = None
        self.fields: dict[str, str] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "form" and self.action is None:
            self.action = found.get("action") or ""
        elif tag == "input" and found.get("name"):
            self.fields[str(found["name"])] = found.get("value") or ""


def _submit(browser: httpx.Client, page: httpx.Response, **values: str) -> httpx.Response:
    form = _Form()
    form.feed(page.text)
    assert form.action is not None, page.text[:500]
    return browser.post(urljoin(str(page.url), form.action), data={**form.fields, **values})


def sign_in(live_url: str, login: str) -> tuple[httpx.Client, httpx.Response]:
    """A browser's trip: our sign-in button, the provider's login form, its consent form,
    back to the service. Returns the browser (its cookies) and the last page."""
    browser = httpx.Client(follow_redirects=True, timeout=20)
    page = browser.get(f"{live_url}/login/")
    assert "Sign in with Test OP" in page.text
    login_form = browser.get(f"{live_url}/login/sso/?next=/usage/")
    authorize = next(r for r in login_form.history if "/auth?" in str(r.headers["location"]))
    query = parse_qs(urlsplit(authorize.headers["location"]).query)
    assert query["code_challenge_method"] == ["S256"]
    assert query["code_challenge"]
    assert 'name="login"' in login_form.text, login_form.text[:500]
    consent = _submit(browser, login_form, login=login, password="anything")
    assert 'name="prompt" value="consent"' in consent.text, consent.text[:500]
    return browser, _submit(browser, consent)


def session_user(browser: httpx.Client) -> User | None:
    key = browser.cookies.get("sessionid")
    user_id = SessionStore(session_key=key).get("_auth_user_id") if key else None
    return None if user_id is None else User.objects.get(pk=user_id)


@pytest.fixture
def acme(db):
    owner = UserFactory(username="acme-owner", email="boss@example.com")
    workspace = workspace_create(name="Acme", owner=owner)
    workspace_sso_set(workspace=workspace, domains=["example.com"], role="viewer", by=owner)
    return workspace


def test_a_new_person_signs_in_and_joins_their_domains_workspace(oidc_provider, live_server, acme):
    browser, page = sign_in(live_server.url, "ann@example.com")
    user = session_user(browser)
    assert user is not None, page.text[:500]
    assert (user.username, user.email) == ("ann@example.com", "ann@example.com")
    assert Membership.objects.get(user=user, workspace=acme).role == Role.VIEWER
    # Back where the sign-in started (?next=): the usage page, which a viewer may not see.
    assert urlsplit(str(page.url)).path == "/usage/"


def test_an_existing_account_is_matched_by_email_and_joined_once(oidc_provider, live_server, acme):
    bob = UserFactory(username="bob", email="Bob@Example.com")
    browser, _ = sign_in(live_server.url, "bob@example.com")
    assert session_user(browser) == bob
    assert User.objects.filter(email__iexact="bob@example.com").count() == 1
    membership = Membership.objects.get(user=bob, workspace=acme)
    assert membership.role == Role.VIEWER
    membership.delete()  # an owner removes him: his next sign-in does not bring him back
    browser, _ = sign_in(live_server.url, "bob@example.com")
    assert session_user(browser) == bob
    assert not Membership.objects.filter(user=bob, workspace=acme).exists()
    assert DomainJoin.objects.filter(user=bob, workspace=acme).count() == 1


def test_a_person_of_another_domain_signs_in_without_joining(oidc_provider, live_server, acme):
    browser, _ = sign_in(live_server.url, "carol@elsewhere.org")
    carol = session_user(browser)
    assert carol is not None
    assert carol.email == "carol@elsewhere.org"
    assert not Membership.objects.filter(user=carol, workspace=acme).exists()


def test_an_unverified_address_is_refused_with_a_page_that_says_so(
    oidc_provider, live_server, acme
):
    browser, page = sign_in(live_server.url, "unverified+dave@example.com")
    assert page.status_code == 403
    assert "has not verified dave@example.com" in page.text
    assert session_user(browser) is None
    assert not User.objects.filter(email="dave@example.com").exists()


def test_a_provider_that_is_down_gives_a_clear_page(live_server, settings):
    settings.OIDC_ISSUER_URL = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    settings.OIDC_RP_CLIENT_ID = "pdf-reports"
    settings.OIDC_PROVIDER_NAME = "Test OP"
    page = httpx.get(f"{live_server.url}/login/sso/", follow_redirects=True, timeout=20)
    assert page.status_code == 503
    assert "did not answer" in page.text
    assert settings.OIDC_ISSUER_URL in page.text


def test_a_provider_that_goes_down_mid_flow_gives_a_clear_page(oidc_provider, live_server, acme):
    browser = httpx.Client(follow_redirects=True, timeout=20)
    login_form = browser.get(f"{live_server.url}/login/sso/")
    consent = _submit(browser, login_form, login="erin@example.com", password="x")
    browser.follow_redirects = False
    answer = _submit(browser, consent)
    while "/login/sso/callback/" not in answer.headers.get("location", ""):
        answer = browser.get(urljoin(str(answer.url), answer.headers["location"]))
    oidc_provider.stop()  # the code is issued; the token request will find nobody
    page = browser.get(answer.headers["location"])
    assert page.status_code == 503
    assert "did not answer" in page.text
    assert session_user(browser) is None
