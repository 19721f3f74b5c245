"""Issuing and checking integrator API keys (stored as SHA-256 digests, shown once)."""

from __future__ import annotations

import hashlib
import hmac
import secrets

from django.contrib.auth.models import User
from django.utils import timezone

from accounts.models import ApiKey

_KEY_PREFIX = "rk"


def _digest(raw_key: str) -> str:
    # Keys are 192-bit random secrets, so a fast hash is enough: nothing to brute-force.
    return hashlib.sha256(raw_key.encode("utf-8")).hexdigest()


def api_key_create(*, user: User, name: str = "") -> tuple[ApiKey, str]:
    """Create a key for the user; return it with the raw secret, which is never stored."""
    prefix = secrets.token_hex(6)
    raw_key = f"{_KEY_PREFIX}_{prefix}_{secrets.token_urlsafe(24)}"
    key = ApiKey.objects.create(user=user, name=name, prefix=prefix, digest=_digest(raw_key))
    return key, raw_key


def api_key_revoke(*, user: User, key_id: int) -> ApiKey | None:
    """Revoke one of the user's keys; None if it is not theirs. Revoking twice keeps the
    first revocation time."""
    key = ApiKey.objects.filter(pk=key_id, user=user).first()
    if key is None:
        return None
    if key.revoked_at is None:
        key.revoked_at = timezone.now()
        key.save(update_fields=["revoked_at"])
    return key


def api_key_authenticate(raw_key: str) -> User | None:
    """Return the active user a raw key belongs to, or None for an unknown or revoked key."""
    parts = raw_key.strip().split("_", 2)
    if len(parts) != 3 or parts[0] != _KEY_PREFIX:
        return None
    key = (
        ApiKey.objects.select_related("user")
        .filter(prefix=parts[1], revoked_at__isnull=True)
        .first()
    )
    if key is None or not hmac.compare_digest(key.digest, _digest(raw_key.strip())):
        return None
    if not key.user.is_active:
        return None
    now = timezone.now()
    if key.last_used_at is None or (now - key.last_used_at).total_seconds() > 60:
        # Throttled so a busy integrator does not write on every request.
        ApiKey.objects.filter(pk=key.pk).update(last_used_at=now)
    return key.user


def user_get_or_create(*, username: str) -> User:
    user, _ = User.objects.get_or_create(username=username)
    return user
