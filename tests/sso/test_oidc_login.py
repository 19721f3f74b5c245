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
from django.test import Client

from accounts.models import SsoIdentity
from tests.factories import UserFactory
from tests.processes import free_port
from workspaces.models import DomainJoin, Membership, Role, SsoDomain
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
    SsoDomain.objects.filter(workspace=workspace).update(verified=True)  # an operator's approval
    return workspace


def test_a_new_person_signs_in_and_joins_their_domains_workspace(oidc_provider, live_server, acme):
    browser, page = sign_in(live_server.url, "ann@example.com")
    user = session_user(browser)
    assert user is not None, page.text[:500]
    assert (user.username, user.email) == ("ann@example.com", "ann@example.com")
    assert Membership.objects.get(user=user, workspace=acme).role == Role.VIEWER
    # Back where the sign-in started (?next=): the usage page, which a viewer may not see.
    assert urlsplit(str(page.url)).path == "/usage/"


def test_a_returning_person_is_found_by_subject_and_joined_once(oidc_provider, live_server, acme):
    browser, _ = sign_in(live_server.url, "bob@example.com")
    bob = session_user(browser)
    assert bob is not None
    identity = SsoIdentity.objects.get(user=bob)
    assert (identity.issuer, identity.subject) == (oidc_provider.issuer, "bob@example.com")
    membership = Membership.objects.get(user=bob, workspace=acme)
    assert membership.role == Role.VIEWER
    membership.delete()  # an owner removes him: his next sign-in does not bring him back
    browser, _ = sign_in(live_server.url, "bob@example.com")
    assert session_user(browser) == bob
    assert not Membership.objects.filter(user=bob, workspace=acme).exists()
    assert DomainJoin.objects.filter(user=bob, workspace=acme).count() == 1
    assert SsoIdentity.objects.count() == 1


def test_an_account_that_set_a_colleagues_address_does_not_receive_their_sign_in(
    oidc_provider, live_server, acme
):
    # The attack: a password account sets its address to a colleague's (unverified), then
    # waits for the colleague's first single sign-on to land in it.
    mallory = User.objects.create_user("mallory", email="mallory@elsewhere.org", password="pw")
    attacker = Client()
    attacker.force_login(mallory)
    answer = attacker.post("/account/email", {"email": "Victim@Example.com"})
    assert answer.status_code in (200, 302)
    mallory.refresh_from_db()
    assert mallory.email == "Victim@Example.com"

    browser, page = sign_in(live_server.url, "victim@example.com")
    victim = session_user(browser)
    assert victim is not None, page.text[:500]
    assert victim != mallory
    assert victim.email == "victim@example.com"
    assert not victim.has_usable_password()
    assert SsoIdentity.objects.get(subject="victim@example.com").user == victim
    # The domain's workspace joined the colleague, not the attacker.
    assert Membership.objects.filter(user=victim, workspace=acme).exists()
    assert not Membership.objects.filter(user=mallory, workspace=acme).exists()
    # And the next sign-in is the colleague's own account again.
    browser, _ = sign_in(live_server.url, "victim@example.com")
    assert session_user(browser) == victim


def test_two_accounts_with_one_address_do_not_lock_the_person_out(oidc_provider, live_server, acme):
    first = User.objects.create_user("first", email="dana@example.com", password="pw")
    second = User.objects.create_user("second", email="DANA@example.com", password="pw")
    browser, page = sign_in(live_server.url, "dana@example.com")
    dana = session_user(browser)
    assert dana is not None, page.text[:500]
    assert dana not in (first, second)
    browser, _ = sign_in(live_server.url, "dana@example.com")
    assert session_user(browser) == dana


def test_without_account_creation_only_an_operators_link_signs_in(
    oidc_provider, live_server, acme, settings
):
    settings.OIDC_CREATE_USER = False
    gil = User.objects.create_user("gil", email="gil@example.com", password="pw")
    browser, page = sign_in(live_server.url, "gil@example.com")
    assert page.status_code == 403
    assert "no account here for you yet" in page.text
    assert session_user(browser) is None  # not the account that merely has the address
    SsoIdentity.objects.create(user=gil, issuer=oidc_provider.issuer, subject="gil@example.com")
    browser, _ = sign_in(live_server.url, "gil@example.com")
    assert session_user(browser) == gil


def test_a_person_whose_address_changed_at_the_provider_keeps_their_account(
    oidc_provider, live_server, acme
):
    browser, _ = sign_in(live_server.url, "fay@example.com")
    fay = session_user(browser)
    assert fay is not None
    # Someone else takes over the old address here; the provider renames Fay's address.
    User.objects.create_user("squatter", email="fay.new@example.com", password="pw")
    oidc_provider.change_email("fay@example.com", "fay.new@example.com")
    browser, page = sign_in(live_server.url, "fay@example.com")
    assert session_user(browser) == fay, page.text[:500]
    assert SsoIdentity.objects.get(user=fay).email == "fay.new@example.com"


def test_a_person_of_another_domain_signs_in_without_joining(oidc_provider, live_server, acme):
    browser, _ = sign_in(live_server.url, "carol@elsewhere.org")
    carol = session_user(browser)
    assert carol is not None
    assert carol.email == "carol@elsewhere.org"
    assert not Membership.objects.filter(user=carol, workspace=acme).exists()


def test_a_domain_no_operator_verified_joins_nobody(oidc_provider, live_server, acme):
    # The owner's claim alone (their own, unproven address's domain) is no proof.
    SsoDomain.objects.filter(workspace=acme).update(verified=False)
    browser, _ = sign_in(live_server.url, "erin@example.com")
    erin = session_user(browser)
    assert erin is not None
    assert erin.email == "erin@example.com"
    assert not Membership.objects.filter(user=erin, workspace=acme).exists()
    assert not DomainJoin.objects.exists()


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
