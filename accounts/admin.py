"""API keys in the admin: inspect and revoke (keys are made by create_api_key or the keys page)."""

from __future__ import annotations

from typing import cast

from django.contrib import admin
from django.contrib.auth.models import User
from django.db.models import QuerySet
from django.http import HttpRequest

from accounts.models import ApiKey, NotificationSettings, SentNotification, SsoIdentity
from accounts.services import api_key_revoke


@admin.register(ApiKey)
class ApiKeyAdmin(admin.ModelAdmin[ApiKey]):
    list_display = (
        "prefix",
        "workspace",
        "role",
        "user",
        "name",
        "created_at",
        "last_used_at",
        "revoked_at",
    )
    list_filter = ("revoked_at", "role")
    search_fields = ("prefix", "user__username", "name")
    readonly_fields = (
        "prefix",
        "digest",
        "created_at",
        "last_used_at",
        "webhook_signing",
        "webhook_secret_previous_until",
    )
    # The signing secrets are the tenant's, shown to it once: an operator (or anyone with
    # the admin) must not read them to forge webhooks. Rotation is `rotate_webhook_secret`.
    exclude = ("webhook_secret", "webhook_secret_previous")
    actions = ("revoke",)

    @admin.display(description="Webhook signing")
    def webhook_signing(self, key: ApiKey) -> str:
        if not key.webhook_secret:
            return "no secret yet (one is made on the first webhook)"
        return "a secret is set (not shown; rotate it with manage.py rotate_webhook_secret)"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # keys are shown once, so they are made by create_api_key

    @admin.action(description="Revoke selected keys")
    def revoke(self, request: HttpRequest, queryset: QuerySet[ApiKey]) -> None:
        active = queryset.filter(revoked_at__isnull=True).select_related("user")
        # api_key_revoke asks workspaces.permissions whether the admin user may.
        user = cast(User, request.user)
        count = sum(1 for key in active if api_key_revoke(user=user, key_id=key.pk))
        self.message_user(request, f"Revoked {count} key(s).")


@admin.register(NotificationSettings)
class NotificationSettingsAdmin(admin.ModelAdmin[NotificationSettings]):
    list_display = (
        "user",
        "email_job_finished",
        "browser_job_finished",
        "email_api_jobs",
        "updated_at",
    )
    list_filter = ("email_job_finished", "browser_job_finished", "email_api_jobs")
    search_fields = ("user__username", "user__email")


@admin.register(SentNotification)
class SentNotificationAdmin(admin.ModelAdmin[SentNotification]):
    """Every notification mail (one row per job's final state): who got what, and when."""

    list_display = ("subject", "to", "user", "created_at", "sent_at")
    search_fields = ("key", "to", "user__username", "subject")
    readonly_fields = ("key", "user", "to", "subject", "created_at", "sent_at")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


@admin.register(SsoIdentity)
class SsoIdentityAdmin(admin.ModelAdmin[SsoIdentity]):
    """Who signs in to which account by single sign-on. An operator links an account made
    before these links existed (issuer and subject from the provider), or unlinks one."""

    list_display = ("subject", "issuer", "user", "email", "created_at", "last_sign_in_at")
    search_fields = ("subject", "email", "user__username")
    raw_id_fields = ("user",)
    readonly_fields = ("email", "created_at", "last_sign_in_at")
