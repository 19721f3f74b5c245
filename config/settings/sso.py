"""Single sign-on over OpenID Connect (mozilla-django-oidc): off until OIDC_ISSUER_URL is set.

The provider's endpoints and keys come from its discovery document (accounts.oidc_provider),
so a deployment names only the issuer, its client id and secret. The OIDC_RP_* / OIDC_* names
below are mozilla-django-oidc's own settings.
"""

from __future__ import annotations

from config.env import env_bool, env_int, env_list, env_str

# ---------------------------------------------------------------- the provider
# The issuer URL (Keycloak: https://sso.example.com/realms/acme); its
# /.well-known/openid-configuration names every endpoint. Empty: no SSO button, no backend.
OIDC_ISSUER_URL = (env_str("OIDC_ISSUER_URL", "") or "").rstrip("/")
OIDC_PROVIDER_NAME = env_str("OIDC_PROVIDER_NAME", "single sign-on") or "single sign-on"
OIDC_RP_CLIENT_ID = env_str("OIDC_CLIENT_ID", "") or ""
OIDC_RP_CLIENT_SECRET = env_str("OIDC_CLIENT_SECRET", "") or ""
OIDC_RP_SCOPES = env_str("OIDC_SCOPES", "openid email profile") or "openid email profile"
OIDC_RP_SIGN_ALGO = env_str("OIDC_SIGN_ALGO", "RS256") or "RS256"
# Entra ID sends no email_verified claim: turn this off only where the provider's addresses
# are managed by you (a user can then not sign in as someone else's address).
OIDC_REQUIRE_EMAIL_VERIFIED = env_bool("OIDC_REQUIRE_EMAIL_VERIFIED", True)
# Mail domains no workspace may claim for joining, beyond the built-in public ones
# (workspaces.mail_domains): comma-separated, `name.*` for any top-level domain.
SSO_PUBLIC_MAIL_DOMAINS = env_list("SSO_PUBLIC_MAIL_DOMAINS", [])

# ---------------------------------------------------------------- the flow
OIDC_USE_PKCE = env_bool("OIDC_USE_PKCE", True)
# Every provider named in the guide takes the secret as HTTP basic auth at the token endpoint.
OIDC_TOKEN_USE_BASIC_AUTH = True
OIDC_TIMEOUT = env_int("OIDC_TIMEOUT_SECONDS", 10, minimum=1)
OIDC_CREATE_USER = env_bool("OIDC_CREATE_USER", True)
OIDC_AUTHENTICATION_CALLBACK_URL = "oidc-callback"
LOGIN_REDIRECT_URL_FAILURE = "/login/"
