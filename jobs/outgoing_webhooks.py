"""What every webhook the service sends shares: its Standard Webhooks signature headers
and the CALLBACK_* bounds of its POST (a job's callback, a schedule's delivery)."""

from __future__ import annotations

from django.conf import settings
from django.utils import timezone
from standardwebhooks.webhooks import Webhook

from jobs.webhook_transport import WebhookResponse, webhook_post


def signed_headers(*, message_id: str, body: str, secrets: list[str]) -> dict[str, str]:
    """Standard Webhooks headers: webhook-id (the caller keeps it the same on every retry,
    so receivers can drop duplicates), webhook-timestamp (this attempt) and
    webhook-signature, one `v1,<HMAC-SHA256>` per signing secret (both during a rotation)."""
    now = timezone.now().replace(microsecond=0)
    headers = {"webhook-id": message_id, "webhook-timestamp": str(int(now.timestamp()))}
    if secrets:
        signatures = [Webhook(secret).sign(message_id, now, body) for secret in secrets]
        headers["webhook-signature"] = " ".join(signatures)
    return headers


def callback_post(
    url: str, *, content: bytes, headers: dict[str, str], method: str = "POST"
) -> WebhookResponse:
    """`webhook_post` within the configured bounds: CALLBACK_TIMEOUT_SECONDS for the whole
    exchange, CALLBACK_CONNECT_TIMEOUT_SECONDS to connect, at most
    CALLBACK_MAX_RESPONSE_BYTES read, internal addresses only with
    CALLBACK_ALLOW_PRIVATE_NETWORKS. Raises as `webhook_post` does."""
    return webhook_post(
        url,
        method=method,
        content=content,
        headers=headers,
        deadline_seconds=settings.CALLBACK_TIMEOUT_SECONDS,
        connect_seconds=settings.CALLBACK_CONNECT_TIMEOUT_SECONDS,
        max_bytes=settings.CALLBACK_MAX_RESPONSE_BYTES,
        allow_private=settings.CALLBACK_ALLOW_PRIVATE_NETWORKS,
    )
