"""API keys: stored hashed, shown once, revocable; the management command prints one."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

from accounts.models import ApiKey
from accounts.services import api_key_authenticate, api_key_create

pytestmark = pytest.mark.django_db


def test_key_is_stored_only_as_a_digest(user):
    key, raw = api_key_create(user=user, name="ci")
    stored = ApiKey.objects.get(pk=key.pk)
    assert raw not in (stored.digest, stored.prefix)
    assert raw.split("_")[1] == stored.prefix
    assert api_key_authenticate(raw) == user


def test_wrong_secret_with_a_real_prefix_is_refused(user):
    _, raw = api_key_create(user=user)
    forged = raw[:-4] + ("AAAA" if not raw.endswith("AAAA") else "BBBB")
    assert api_key_authenticate(forged) is None
    assert api_key_authenticate("not-a-key") is None


def test_revoked_key_and_inactive_user_are_refused(user):
    key, raw = api_key_create(user=user)
    ApiKey.objects.filter(pk=key.pk).update(revoked_at=timezone.now())
    assert api_key_authenticate(raw) is None
    _, raw2 = api_key_create(user=user)
    user.is_active = False
    user.save()
    assert api_key_authenticate(raw2) is None


def test_create_api_key_command_creates_the_user_and_prints_a_working_key():
    out = StringIO()
    call_command("create_api_key", "integrator", stdout=out)
    raw = out.getvalue().strip()
    user = api_key_authenticate(raw)
    assert user is not None
    assert user.username == "integrator"


def test_revoke_is_scoped_to_the_owner_and_keeps_the_first_time(user):
    from accounts.services import api_key_revoke
    from tests.factories import UserFactory

    key, raw = api_key_create(user=user)
    assert api_key_revoke(user=UserFactory(username="intruder"), key_id=key.pk) is None
    assert api_key_authenticate(raw) == user
    first = api_key_revoke(user=user, key_id=key.pk).revoked_at
    assert api_key_authenticate(raw) is None
    assert api_key_revoke(user=user, key_id=key.pk).revoked_at == first


def test_an_expired_key_is_refused_like_a_revoked_one(user):
    from datetime import timedelta

    from django.utils import timezone

    from accounts.models import ApiKey
    from accounts.services import api_key_create, api_key_resolve

    key, raw = api_key_create(user=user, name="short-lived", expires_in_days=30)
    assert key.expires_at is not None
    assert api_key_resolve(raw) == key
    ApiKey.objects.filter(pk=key.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert api_key_resolve(raw) is None
    forever, raw_forever = api_key_create(user=user)
    assert forever.expires_at is None
    assert api_key_resolve(raw_forever) == forever


def test_keys_are_capped_per_tenant_and_a_revoked_one_frees_its_place(user, settings):
    from accounts.services import api_key_revoke
    from core.errors import Conflict
    from tests.factories import UserFactory

    settings.API_KEYS_MAX_PER_TENANT = 3
    keys = [api_key_create(user=user, name=f"k{n}")[0] for n in range(3)]
    with pytest.raises(Conflict) as refused:
        api_key_create(user=user, name="one too many")
    assert refused.value.http_status == 409
    assert "API_KEYS_MAX_PER_TENANT" in refused.value.message
    assert ApiKey.objects.filter(user=user).count() == 3
    api_key_create(user=UserFactory(), name="another tenant")  # its own cap
    api_key_revoke(user=user, key_id=keys[0].pk)
    assert api_key_create(user=user, name="replacement")[0].name == "replacement"
