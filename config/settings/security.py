"""Sign-in and browser security: sign-in throttling, password rules, Content-Security-Policy."""

from __future__ import annotations

from datetime import timedelta

from csp.constants import NONE, SELF

from config.env import env_int, env_str

# ---------------------------------------------------------------- sign-in
# django-axes counts failed sign-ins (browser and admin) in the database, so every web
# process sees them: after AXES_FAILURE_LIMIT failures for one username from one address
# that pair is locked out for AXES_COOLOFF_MINUTES (HTTP 429); a success resets the count.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    # Password spraying: failures from one address across every username (accounts).
    "accounts.sign_in_guard.SprayGuardBackend",
    "django.contrib.auth.backends.ModelBackend",
    # Single sign-on (config.settings.sso): answers only the OIDC callback, when configured.
    "accounts.oidc_backend.OidcBackend",
]
AXES_FAILURE_LIMIT = env_int("AXES_FAILURE_LIMIT", 5, minimum=1)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("AXES_COOLOFF_MINUTES", 15, minimum=1))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_HTTP_RESPONSE_CODE = 429
# Failed sign-ins from one address, whatever the usernames (DRF rate syntax), before every
# sign-in from it is refused for the rest of the window.
SIGN_IN_FAILURES_PER_IP = env_str("SIGN_IN_FAILURES_PER_IP", "30/hour") or "30/hour"
# How long an emailed invitation to a workspace stays good (it is also single-use).
WORKSPACE_INVITATION_DAYS = env_int("WORKSPACE_INVITATION_DAYS", 7, minimum=1)
# Invitation mails one workspace may send in 24 hours (the service is no mail relay).
WORKSPACE_INVITATIONS_PER_DAY = env_int("WORKSPACE_INVITATIONS_PER_DAY", 50, minimum=1)
AXES_VERBOSE = False  # no banner in every process's log at start-up
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {
        "NAME": "django.contrib.auth.password_validation.MinimumLengthValidator",
        "OPTIONS": {"min_length": 12},
    },
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# ---------------------------------------------------------------- Content-Security-Policy
# Every page: scripts and styles only from our own static files (the UI has no inline
# script, handler or style attribute), images also from data: URIs (thumbnails, previews),
# live updates over same-origin WebSocket/EventSource. The API docs pages relax it for
# their own bundles (config.urls).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "connect-src": [SELF],
        "font-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}
