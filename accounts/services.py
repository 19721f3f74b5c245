"""Issuing and checking integrator API keys (stored as SHA-256 digests, shown once)."""

from __future__ import annotations

import base64
import copy
import hashlib
import hmac
import secrets
from datetime import timedelta

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from accounts.error_codes import AccountErrorCode
from accounts.events import key_revoked_publish
from accounts.models import ApiKey
from core.errors import Conflict
from core.generation_cache import GenerationCache
from workspaces.access import access_lost
from workspaces.audit import AuditAction, audit_record
from workspaces.models import Role, Workspace
from workspaces.permissions import Action, can
from workspaces.services import workspace_personal

_KEY_PREFIX = "rk"
API_KEY_PREFIX = _KEY_PREFIX  # a raw key reads rk_<prefix>_<secret>


def _digest(raw_key: str) -> str:
    # Keys are 192-bit random secrets, so a fast hash is enough: nothing to brute-force.
    return hashlib.sha256(raw_key.encode("utf-8")).hexdigest()


def api_key_create(
    *,
    user: User,
    name: str = "",
    expires_in_days: int | None = None,
    workspace: Workspace | None = None,
    role: str = Role.EDITOR,
) -> tuple[ApiKey, str]:
    """Create a key of `workspace` (by default the user's own), made by the user and acting
    in `role`, expiring after `expires_in_days` if given; return it with the raw secret,
    which is never stored. Conflict (409) once the tenant has
    API_KEYS_MAX_PER_TENANT usable keys: every limit is per tenant, and a cap keeps the
    keys table (and the keys page) bounded too."""
    prefix = secrets.token_hex(6)
    raw_key = f"{_KEY_PREFIX}_{prefix}_{secrets.token_urlsafe(24)}"
    expires_at = timezone.now() + timedelta(days=expires_in_days) if expires_in_days else None
    home = workspace or workspace_personal(user=user)
    with transaction.atomic():
        _api_key_slot_reserve(workspace=home)
        key = ApiKey.objects.create(
            user=user,
            workspace=home,
            role=Role(role),
            name=name,
            prefix=prefix,
            digest=_digest(raw_key),
            expires_at=expires_at,
            webhook_secret=webhook_secret_new(),
        )
        _key_audit(key, workspace=home, by=user, action=AuditAction.KEY_CREATED, role=key.role)
    return key, raw_key


def _key_audit(
    key: ApiKey,
    *,
    workspace: Workspace | int,
    by: User,
    action: AuditAction,
    role: str | None = None,
) -> None:
    """The audit entry of a key's creation or revocation: the key is named by its prefix
    (the part of the secret that is shown) and its name; a creation says its role."""
    audit_record(
        workspace=workspace,
        actor=by,
        action=action,
        target=key,
        target_id=key.prefix,
        target_repr=f"{key.prefix}… {key.name}".strip(),
        changes={"role": role} if role is not None else None,
    )


def api_keys_usable_count(*, workspace: Workspace) -> int:
    """Keys of the workspace (the tenant) that still authenticate (not revoked, not
    expired), whoever of its members made them."""
    return (
        ApiKey.objects.filter(workspace=workspace, revoked_at__isnull=True)
        .filter(Q(expires_at__isnull=True) | Q(expires_at__gt=timezone.now()))
        .count()
    )


def _api_key_slot_reserve(*, workspace: Workspace) -> None:
    limit = settings.API_KEYS_MAX_PER_TENANT
    # The workspace's row lock makes two concurrent creations count one after the other.
    Workspace.objects.select_for_update().filter(pk=workspace.pk).values_list("pk").first()
    count = api_keys_usable_count(workspace=workspace)
    if count >= limit:
        raise Conflict(
            f"{workspace.name} already has {count} usable API keys; the limit is {limit} "
            "(API_KEYS_MAX_PER_TENANT). Revoke one you no longer use, then create the new one.",
            code=AccountErrorCode.API_KEYS_MAX,
        )


def webhook_secret_new() -> str:
    """A Standard Webhooks secret: `whsec_` and 24 random bytes in base64."""
    return "whsec_" + base64.b64encode(secrets.token_bytes(24)).decode("ascii")


def webhook_secret_rotate(*, key: ApiKey, grace_seconds: int) -> str:
    """Give the key a new signing secret and return it (shown once); the old one keeps
    signing beside it for `grace_seconds`."""
    key.webhook_secret_previous = key.webhook_secret
    key.webhook_secret_previous_until = timezone.now() + timedelta(seconds=grace_seconds)
    key.webhook_secret = webhook_secret_new()
    key.save(
        update_fields=[
            "webhook_secret",
            "webhook_secret_previous",
            "webhook_secret_previous_until",
        ]
    )
    return key.webhook_secret


def webhook_signing_secrets(*, key: ApiKey) -> list[str]:
    """The secrets that sign now: the current one, and the previous within its grace."""
    if not key.webhook_secret:  # a key made before signing existed gets one on first use
        key.webhook_secret = webhook_secret_new()
        ApiKey.objects.filter(pk=key.pk, webhook_secret="").update(
            webhook_secret=key.webhook_secret
        )
        api_keys.invalidate()
        key.refresh_from_db(fields=["webhook_secret"])
    found = [key.webhook_secret]
    until = key.webhook_secret_previous_until
    if key.webhook_secret_previous and until is not None and until > timezone.now():
        found.append(key.webhook_secret_previous)
    return found


def api_key_revoke(*, user: User, key_id: int) -> ApiKey | None:
    """Revoke a key of a workspace where the user may manage keys; None if they may not
    (or it does not exist). Revoking twice keeps the first revocation time."""
    key = ApiKey.objects.filter(pk=key_id).first()
    if key is None or not can(user, Action.KEY_MANAGE, key):
        return None
    if key.revoked_at is None:
        key.revoked_at = timezone.now()
        key.save(update_fields=["revoked_at"])
        access_lost.send(
            sender=ApiKey,
            workspace_id=key.workspace_id,
            api_key_id=key.pk,
            reason=f"the API key it was created with ({key.prefix}…) was revoked",
        )
        if key.workspace_id is not None:
            _key_audit(key, workspace=key.workspace_id, by=user, action=AuditAction.KEY_REVOKED)
        prefix = key.prefix
        transaction.on_commit(lambda: key_revoked_publish(prefix))  # close its live streams
    return key


def api_key_authenticate(raw_key: str) -> User | None:
    """Return the active user a raw key belongs to, or None for an unknown or revoked key."""
    key = api_key_resolve(raw_key)
    return None if key is None else key.user


# Keys by prefix, with their user and workspace: a submit's costliest query (~5 M
# instructions) answered from the process while no key, user or workspace changed.
api_keys: GenerationCache[ApiKey] = GenerationCache("api-keys")


def _key_unrevoked(prefix: str) -> ApiKey | None:
    return (
        ApiKey.objects.select_related("user", "workspace")  # the workspace is the API's scope
        .filter(prefix=prefix, revoked_at__isnull=True)
        .first()
    )


def api_key_resolve(raw_key: str) -> ApiKey | None:
    """The active key (with its user) a raw key is, or None if unknown, revoked, expired
    or its user is inactive."""
    parts = raw_key.strip().split("_", 2)
    if len(parts) != 3 or parts[0] != _KEY_PREFIX:
        return None
    cached = api_keys.get(parts[1], lambda: _key_unrevoked(parts[1]))
    # A copy of its own for the request (its user and workspace are shared: read only).
    key = copy.copy(cached)
    if key is None or not hmac.compare_digest(key.digest, _digest(raw_key.strip())):
        return None
    if not key.user.is_active or key.is_expired:
        return None
    now = timezone.now()
    if key.last_used_at is None or (now - key.last_used_at).total_seconds() > 60:
        # Throttled so a busy integrator does not write on every request.
        ApiKey.objects.filter(pk=key.pk).update(last_used_at=now)
        if cached is not None:
            cached.last_used_at = now
    return key


def user_email_set(*, user: User, email: str) -> User:
    """The address job mail goes to (accounts.notifications reads it)."""
    user.email = email
    user.save(update_fields=["email"])
    return user


def user_get_or_create(*, username: str) -> User:
    user, _ = User.objects.get_or_create(username=username)
    return user
