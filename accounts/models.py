"""ApiKey: an integrator's key to the API (only a SHA-256 digest of the secret is stored);
SigningCertificate: a tenant's PKCS#12 for signatures, stored sealed."""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import models
from django.utils import timezone

from core.model_links import workspace_link
from workspaces.models import Role

if TYPE_CHECKING:
    from core.model_links import OptionalLink
    from workspaces.models import Workspace


class ApiKey(models.Model):
    """An integrator key of a workspace; only a SHA-256 digest of the secret is stored."""

    # Who created the key; it acts for its workspace, in its own role, not as this person.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_keys"
    )
    # The key's scope: the API shows and makes only this workspace's jobs and templates.
    # Null only between the schema and the data migration that fills it.
    workspace: OptionalLink[Workspace] = workspace_link("api_keys")
    role = models.CharField(max_length=20, choices=Role.choices, default=Role.EDITOR)
    name = models.CharField(max_length=100, blank=True)
    prefix = models.CharField(max_length=16, unique=True)
    digest = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    # After this the key is refused as if revoked; empty means it does not expire.
    expires_at = models.DateTimeField(null=True, blank=True)
    # Standard Webhooks signing secret (`whsec_` + base64). After a rotation the previous
    # one also signs until `webhook_secret_previous_until`, so receivers can switch over.
    webhook_secret = models.CharField(max_length=80, blank=True)
    webhook_secret_previous = models.CharField(max_length=80, blank=True)
    webhook_secret_previous_until = models.DateTimeField(null=True, blank=True)
    # Where this key's jobs report when a submit names no callback_url.
    default_callback_url = models.URLField(max_length=2000, blank=True)

    class Meta:
        # The table keeps the name it had in the jobs app: the model moved, no data did.
        db_table = "jobs_apikey"
        verbose_name = "API key"
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.user})"

    @property
    def is_expired(self) -> bool:
        return self.expires_at is not None and self.expires_at <= timezone.now()


class NotificationSettings(models.Model):
    """What a person wants to be told about their own jobs; no row means the defaults (mail
    and notices for what they asked for in the browser), so nobody has to visit a page."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="notification_settings",
    )
    # A mail when a job completes (with its download link) or finally fails (with advice).
    email_job_finished = models.BooleanField(default=True)
    # A notice in the open browser UI (and a desktop notification, if the browser allows).
    browser_job_finished = models.BooleanField(default=True)
    # The same mail for the jobs an API key of theirs submits: off unless asked for, since
    # an integration's jobs would otherwise mail a person once each (thousands a day).
    email_api_jobs = models.BooleanField(default=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "notification settings"

    def __str__(self) -> str:
        return f"notification settings of {self.user}"


class SentNotification(models.Model):
    """One row per notification mail: its unique key (what it is about, e.g. a job's final
    state) makes a redelivered task find the mail already sent instead of sending it twice."""

    key = models.CharField(max_length=200, unique=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="sent_notifications"
    )
    to = models.CharField(max_length=254)
    subject = models.CharField(max_length=300)
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.subject} → {self.to}"


class SigningCertificate(models.Model):
    """A tenant's PKCS#12 for PAdES signatures. The file and its password are stored only
    sealed (Fernet, accounts.signing_certificates) and never returned by any API."""

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    # Who uploaded it; the certificate signs for its workspace, not for this person.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="signing_certificates"
    )
    # Null only between the schema and the data migration that fills it.
    workspace: OptionalLink[Workspace] = workspace_link("signing_certificates")
    name = models.CharField(max_length=100)
    subject = models.CharField(max_length=500)
    not_after = models.DateTimeField()
    sealed_pkcs12 = models.BinaryField()
    sealed_password = models.BinaryField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} ({self.subject})"


class SsoIdentity(models.Model):
    """A person at an OpenID provider, `(issuer, subject)`, and the account it signs in to.
    Made on the first single sign-on; later sign-ins find the account by this link only,
    never by an email address (an account's address can be edited, unverified)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="sso_identities"
    )
    issuer = models.CharField(max_length=500)
    subject = models.CharField(max_length=255)
    # The provider's address at the last sign-in: for people reading the admin, not identity.
    email = models.CharField(max_length=254, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_sign_in_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "SSO identity"
        verbose_name_plural = "SSO identities"
        constraints = [
            models.UniqueConstraint(fields=["issuer", "subject"], name="sso_identity_unique")
        ]

    def __str__(self) -> str:
        return f"{self.subject} at {self.issuer} → {self.user}"
