"""Sign-in (password, or single sign-on), the account page and the keys page."""

from django.contrib.auth import views as auth_views
from django.urls import path

from accounts import oidc_views, views

urlpatterns = [
    path("login/", views.SignInView.as_view(), name="login"),
    path("login/sso/", oidc_views.OidcLoginView.as_view(), name="oidc-login"),
    path("login/sso/callback/", oidc_views.OidcCallbackView.as_view(), name="oidc-callback"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("account/", views.account, name="account"),
    path("account/email", views.account_email, name="account-email"),
    path("account/password", views.account_password, name="account-password"),
    path("keys/", views.api_keys, name="api-keys"),
    path("keys/<int:key_id>/revoke", views.api_key_revoke_view, name="api-key-revoke"),
]
