"""Someone lost access to a workspace: announced to the apps above (schedules pause)."""

from __future__ import annotations

from django.dispatch import Signal

# Sent inside the transaction that removes the access, with keyword arguments
# workspace_id (None: every workspace), user_id or api_key_id (one of them), and reason.
access_lost = Signal()
