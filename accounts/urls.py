"""Sign-in, the account page and the keys page."""

from django.contrib.auth import views as auth_views
from django.urls import path

from accounts import views

urlpatterns = [
    path(
        "login/",
        auth_views.LoginView.as_view(
            template_name="auth/login.html", redirect_authenticated_user=True
        ),
        name="login",
    ),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("account/", views.account, name="account"),
    path("account/email", views.account_email, name="account-email"),
    path("account/password", views.account_password, name="account-password"),
    path("keys/", views.api_keys, name="api-keys"),
    path("keys/<int:key_id>/revoke", views.api_key_revoke_view, name="api-key-revoke"),
]
