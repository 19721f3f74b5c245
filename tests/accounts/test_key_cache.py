"""A key is resolved from the process's cache until a key, user or workspace change commits."""

from __future__ import annotations

import pytest

from accounts.services import api_key_create, api_key_resolve, api_key_revoke

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_cached_key_costs_no_query_and_revoking_it_takes_effect_at_once(
    user, django_assert_num_queries
):
    key, raw = api_key_create(user=user, name="cached")
    assert api_key_resolve(raw) is not None
    with django_assert_num_queries(0):
        again = api_key_resolve(raw)
    assert again is not None
    assert again.pk == key.pk
    api_key_revoke(user=user, key_id=key.pk)
    assert api_key_resolve(raw) is None


def test_a_deactivated_user_s_cached_key_stops_working(user):
    _, raw = api_key_create(user=user, name="cached")
    assert api_key_resolve(raw) is not None
    user.is_active = False
    user.save(update_fields=["is_active"])
    assert api_key_resolve(raw) is None


def test_each_request_gets_a_copy_of_its_own(user):
    _, raw = api_key_create(user=user, name="cached")
    first = api_key_resolve(raw)
    assert first is not None
    first.name = "changed in memory only"
    second = api_key_resolve(raw)
    assert second is not None
    assert second.name == "cached"
