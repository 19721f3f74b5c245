from types import SimpleNamespace

from django.test import override_settings

from accounts.authentication import Caller
from jobs.live.access import followed_as


@override_settings(SSE_HEARTBEAT_SECONDS=7)
def test_a_key_follows_until_its_revocation_a_session_until_its_member_leaves() -> None:
    person = SimpleNamespace(pk=3)
    by_key = Caller(user=person, key_prefix="abc123", workspace_id=9)
    by_session = Caller(user=person, key_prefix=None, workspace_id=9)
    assert followed_as(by_key) == {"heartbeat": 7, "key_prefix": "abc123", "member": None}
    assert followed_as(by_session) == {"heartbeat": 7, "key_prefix": None, "member": (3, 9)}
