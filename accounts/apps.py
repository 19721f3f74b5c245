"""App config for accounts: integrator API keys and who is calling."""

from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = "Accounts"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from accounts import sign_in_guard  # noqa: F401 - connects the failure counter
