"""Who an OpenID Connect sign-in is: the account linked to the provider's `(issuer, subject)`,
or a new one linked on the first sign-in (accounts.sso_identities), never an account found by
its email address; then the workspaces their address's domain joins them to
(workspaces.services)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import SuspiciousOperation
from mozilla_django_oidc.auth import OIDCAuthenticationBackend

from accounts.oidc_provider import oidc_setting, provider_metadata, sso_enabled
from accounts.sso_identities import sso_identity_first_sign_in, sso_identity_user
from workspaces.services import workspace_join_by_email_domain


def _endpoint(name: str) -> property:
    return property(lambda self: oidc_setting(name))


class OidcBackend(OIDCAuthenticationBackend):
    """mozilla-django-oidc's backend with the endpoints from discovery, the email address
    required verified, and the ID token's audience and issuer checked (the library checks
    only its signature and nonce)."""

    get_settings = staticmethod(oidc_setting)
    OIDC_OP_TOKEN_ENDPOINT = _endpoint("OIDC_OP_TOKEN_ENDPOINT")
    OIDC_OP_USER_ENDPOINT = _endpoint("OIDC_OP_USER_ENDPOINT")
    OIDC_OP_JWKS_ENDPOINT = _endpoint("OIDC_OP_JWKS_ENDPOINT")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # Not the library's __init__: it reads every endpoint, and Django makes each backend
        # for every sign-in, so a password sign-in would fetch the discovery document.
        self.OIDC_RP_CLIENT_ID = settings.OIDC_RP_CLIENT_ID
        self.OIDC_RP_CLIENT_SECRET = settings.OIDC_RP_CLIENT_SECRET
        self.OIDC_RP_SIGN_ALGO = settings.OIDC_RP_SIGN_ALGO
        self.OIDC_RP_IDP_SIGN_KEY = None
        self.UserModel = get_user_model()

    def authenticate(self, request: Any, **kwargs: Any) -> Any:
        # Only the callback view's call (it passes the nonce), never a password sign-in.
        if not sso_enabled() or "nonce" not in kwargs or "password" in kwargs:
            return None
        return super().authenticate(request, **kwargs)

    def _refuse(self, reason: str) -> bool:
        """Keep the reason for the callback view's error page; False (claims refused)."""
        self.request.sso_refusal = reason
        return False

    def verify_claims(self, claims: dict[str, Any]) -> bool:
        if not claims.get("email"):
            return self._refuse(
                "The sign-in provider sent no email address; allow the email scope for this client."
            )
        if settings.OIDC_REQUIRE_EMAIL_VERIFIED and claims.get("email_verified") is not True:
            return self._refuse(
                f"The sign-in provider has not verified {claims['email']}; verify it there "
                "and sign in again."
            )
        return True

    def verify_token(self, token: str, **kwargs: Any) -> Any:
        payload = super().verify_token(token, **kwargs)
        audience = payload.get("aud")
        audiences = audience if isinstance(audience, list) else [audience]
        if self.OIDC_RP_CLIENT_ID not in audiences:
            raise SuspiciousOperation("The ID token was issued to another client.")
        if payload.get("iss") != provider_metadata()["issuer"]:
            raise SuspiciousOperation("The ID token comes from another issuer.")
        return payload

    def get_or_create_user(self, access_token: Any, id_token: Any, payload: dict[str, Any]) -> Any:
        """The library's, but by the ID token's `(iss, sub)` instead of by email address."""
        claims = self.get_userinfo(access_token, id_token, payload)
        if not self.verify_claims(claims):
            raise SuspiciousOperation("Claims verification failed")
        issuer, subject = str(payload.get("iss") or ""), str(payload.get("sub") or "")
        # OpenID Connect Core 1.0, 5.3.2: the userinfo's sub must be the ID token's.
        if not subject or str(claims.get("sub", subject)) != subject:
            self._refuse("The sign-in provider sent no subject, or two different ones.")
            raise SuspiciousOperation("The userinfo subject is not the ID token's.")
        email = str(claims["email"])
        user = sso_identity_user(issuer=issuer, subject=subject, email=email)
        if user is not None:
            return self.update_user(user, claims)
        if not self.get_settings("OIDC_CREATE_USER", True):
            self._refuse("There is no account here for you yet; ask an administrator.")
            return None
        return sso_identity_first_sign_in(
            issuer=issuer, subject=subject, email=email, make_user=lambda: self.create_user(claims)
        )

    def _free_username(self, email: str) -> str:
        """The address itself (people recognise it), suffixed if a username has it."""
        base, number = email[:140], 1
        candidate = base
        while self.UserModel.objects.filter(username__iexact=candidate).exists():
            number += 1
            candidate = f"{base}-{number}"
        return candidate

    def create_user(self, claims: dict[str, Any]) -> Any:
        email = claims["email"]
        user = self.UserModel.objects.create_user(
            self._free_username(email),
            email=email,
            first_name=str(claims.get("given_name", ""))[:150],
            last_name=str(claims.get("family_name", ""))[:150],
        )
        workspace_join_by_email_domain(user=user, email=email)
        return user

    def update_user(self, user: Any, claims: dict[str, Any]) -> Any:
        workspace_join_by_email_domain(user=user, email=claims["email"])
        return user
