"""App config for accounts: integrator API keys and who is calling."""

from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = "Accounts"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # API keys are cached per process (accounts.services.api_keys): any change of a
        # key, its user or its workspace makes them stale.
        from django.contrib.auth import get_user_model
        from django.db.models.signals import post_delete, post_save

        from accounts import (
            schema,  # noqa: F401  (registers the API-key scheme's extension)
            sign_in_guard,  # noqa: F401 - connects the failure counter
        )
        from accounts.models import ApiKey
        from accounts.services import api_keys
        from workspaces.models import Workspace

        for model in (ApiKey, get_user_model(), Workspace):
            for signal in (post_save, post_delete):
                signal.connect(
                    api_keys.invalidate, sender=model, dispatch_uid=f"api-keys-{model.__name__}"
                )
