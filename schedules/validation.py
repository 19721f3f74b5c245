"""A schedule's fields checked before it is saved: each problem a 400 naming the field."""

from __future__ import annotations

import ipaddress
import re
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import validate_email

from jobs.callbacks import callback_url_check
from jobs.webhook_transport import WebhookRefused, address_allowed, resolve_checked
from schedules.cron import ScheduleInvalid
from schedules.mail_limits import mail_recipients_outside, outside_message

DELIVERY_TYPES = ("email", "webhook", "s3")
MAX_DELIVERIES = 10
MAX_RECIPIENTS = 20
# S3's bucket naming rules (3-63 lowercase letters, digits, dots, hyphens).
_BUCKET = re.compile(r"^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$")


def data_url_check(url: str, *, resolve: bool = True) -> str:
    """The URL if runs may fetch their data from it: the outbound rules of webhooks
    (jobs.webhook_transport): https (CALLBACK_REQUIRE_HTTPS), a host, and only public
    addresses, every one the name resolves to (unless CALLBACK_ALLOW_PRIVATE_NETWORKS)."""
    parts = urlsplit(url)
    allow_private = settings.CALLBACK_ALLOW_PRIVATE_NETWORKS
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https") or (settings.CALLBACK_REQUIRE_HTTPS and scheme != "https"):
        raise ScheduleInvalid("data_url", "must be an https URL (CALLBACK_REQUIRE_HTTPS).")
    if not parts.hostname:
        raise ScheduleInvalid("data_url", "must name a host.")
    if allow_private:
        return url
    host = parts.hostname.rstrip(".").lower()
    try:
        literal = ipaddress.ip_address(host.split("%")[0])
    except ValueError:
        literal = None
    if literal is not None and not address_allowed(literal):
        raise ScheduleInvalid("data_url", f"host {host!r} is not a public address.")
    if host == "localhost" or host.endswith(".localhost"):
        raise ScheduleInvalid("data_url", f"host {host!r} is not a public address.")
    if resolve and literal is None:
        try:
            resolve_checked(parts.hostname, parts.port or 443, allow_private=False)
        except WebhookRefused as exc:
            raise ScheduleInvalid("data_url", str(exc).replace("callback host", "host")) from None
    return url


def _email(field: str, item: dict[str, Any], *, workspace: Any) -> dict[str, Any]:
    to = item.get("to")
    if isinstance(to, str):
        to = [to]
    if not isinstance(to, list) or not to or len(to) > MAX_RECIPIENTS:
        raise ScheduleInvalid(f"{field}.to", f"give 1 to {MAX_RECIPIENTS} addresses.")
    for index, address in enumerate(to):
        try:
            validate_email(address)
        except (ValidationError, TypeError):
            raise ScheduleInvalid(
                f"{field}.to[{index}]", f"{address!r} is not an address."
            ) from None
    for address in mail_recipients_outside(workspace=workspace, addresses=to):
        raise ScheduleInvalid(f"{field}.to[{to.index(address)}]", outside_message(address))
    return {"type": "email", "to": [str(a) for a in to]}


def _webhook(field: str, item: dict[str, Any], *, signed: bool) -> dict[str, Any]:
    url = item.get("url")
    if not isinstance(url, str) or not url:
        raise ScheduleInvalid(f"{field}.url", "give the URL to POST the run's result to.")
    problem = callback_url_check(url, resolve=False)
    if problem:
        raise ScheduleInvalid(f"{field}.url", problem.replace("callback_url ", ""))
    if not signed:
        # Signed with the creating key's secret: without a key (the browser) a receiver
        # could not tell the webhook from a forgery (as for a job's callback_url).
        raise ScheduleInvalid(
            f"{field}.url", "a webhook delivery needs a schedule made with an API key."
        )
    return {"type": "webhook", "url": url}


def s3_destination_allowed(workspace: Any, *, bucket: str, prefix: str) -> bool:
    """Is s3://bucket/prefix on the operator's list for the workspace (a line `bucket`, or
    `bucket/prefix` covering keys under that prefix only)? The worker writes with the
    service's own credentials, so nothing a tenant names is trusted beyond this list."""
    under = f"{prefix.strip('/')}/"
    for line in (getattr(workspace, "schedule_s3_destinations", "") or "").splitlines():
        allowed_bucket, _, allowed_prefix = line.strip().partition("/")
        if not allowed_bucket or allowed_bucket != bucket:
            continue
        allowed_prefix = allowed_prefix.strip("/")
        if not allowed_prefix or under.startswith(f"{allowed_prefix}/"):
            return True
    return False


def _s3(field: str, item: dict[str, Any], *, workspace: Any) -> dict[str, Any]:
    bucket = item.get("bucket")
    if not isinstance(bucket, str) or not _BUCKET.match(bucket):
        raise ScheduleInvalid(f"{field}.bucket", f"{bucket!r} is not an S3 bucket name.")
    prefix = item.get("prefix", "")
    if not isinstance(prefix, str) or len(prefix) > 500:
        raise ScheduleInvalid(f"{field}.prefix", "must be text of at most 500 characters.")
    prefix = prefix.lstrip("/")
    if not s3_destination_allowed(workspace, bucket=bucket, prefix=prefix):
        raise ScheduleInvalid(
            f"{field}.bucket",
            f"s3://{bucket}/{prefix} is not one of this workspace's S3 destinations; an "
            "operator of the service sets those (the workspace's S3 destinations in the admin).",
        )
    return {"type": "s3", "bucket": bucket, "prefix": prefix}


def deliveries_check(raw: Any, *, signed: bool, workspace: Any) -> list[dict[str, Any]]:
    """The deliveries, normalised: each {type: email, to: [...]}, {type: webhook, url} or
    {type: s3, bucket, prefix}, the last only to a destination on the workspace's list.
    `signed`: the schedule has a key to sign webhooks."""
    if raw is None:
        return []
    if not isinstance(raw, list) or len(raw) > MAX_DELIVERIES:
        raise ScheduleInvalid("deliveries", f"give a list of at most {MAX_DELIVERIES} deliveries.")
    checked = []
    for index, item in enumerate(raw):
        field = f"deliveries[{index}]"
        kind = item.get("type") if isinstance(item, dict) else None
        if kind not in DELIVERY_TYPES:
            raise ScheduleInvalid(f"{field}.type", f"use one of: {', '.join(DELIVERY_TYPES)}.")
        if kind == "email":
            checked.append(_email(field, item, workspace=workspace))
        elif kind == "webhook":
            checked.append(_webhook(field, item, signed=signed))
        else:
            checked.append(_s3(field, item, workspace=workspace))
    return checked
