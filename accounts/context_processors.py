"""What every page needs to know about the signed-in person: whether to show a notice when
one of their jobs ends (read by static/js/notify.js from the page's body)."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest

from accounts.notifications import notification_preferences


def job_notices(request: HttpRequest) -> dict[str, Callable[[], bool]]:
    """A callable, so only a page that asks (base.html) reads the preference."""

    def wanted() -> bool:
        user = getattr(request, "user", None)
        if user is None or not user.is_authenticated:
            return False
        return notification_preferences(user_id=user.pk).browser_job_finished

    return {"job_notices": wanted}
