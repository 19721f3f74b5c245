"""Schedules: how often beat looks for due ones, the data fetch of a run, its deliveries."""

from __future__ import annotations

from config.env import env_bool, env_int, env_str

# How often beat runs the due-schedules task (a tick runs within this long of its time).
SCHEDULE_TICK_SECONDS = env_int("SCHEDULE_TICK_SECONDS", 30, minimum=1)
# A run's data_url fetch: the whole exchange within this many seconds, at most this many
# bytes of JSON (past either, the run fails with the reason; no job is submitted).
SCHEDULE_DATA_TIMEOUT_SECONDS = env_int("SCHEDULE_DATA_TIMEOUT_SECONDS", 10, minimum=1)
SCHEDULE_DATA_MAX_BYTES = env_int("SCHEDULE_DATA_MAX_BYTES", 1024 * 1024, minimum=1024)
# Tries of a run's deliveries (mail, webhook, S3) before the run is delivery_failed.
SCHEDULE_DELIVERY_MAX_ATTEMPTS = env_int("SCHEDULE_DELIVERY_MAX_ATTEMPTS", 5, minimum=1)
# Most schedules one workspace keeps: the due claim is shared by every tenant.
SCHEDULE_MAX_PER_WORKSPACE = env_int("SCHEDULE_MAX_PER_WORKSPACE", 50, minimum=1)
# Delivery mail goes only to the workspace's members' addresses unless an operator allows
# any address; and a workspace's schedules mail at most this many recipients in 24 hours.
SCHEDULE_MAIL_ANY_RECIPIENT = env_bool("SCHEDULE_MAIL_ANY_RECIPIENT", False)
SCHEDULE_MAILS_PER_DAY = env_int("SCHEDULE_MAILS_PER_DAY", 200, minimum=1)
# The PDF is attached to a delivery mail up to this size; a larger one is only linked.
SCHEDULE_MAIL_ATTACH_MAX_BYTES = env_int("SCHEDULE_MAIL_ATTACH_MAX_BYTES", 10 * 1024 * 1024)
# The S3 endpoint of s3 deliveries (empty: AWS itself); credentials are boto3's own
# (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, an instance role, ~/.aws).
SCHEDULE_S3_ENDPOINT_URL = env_str("SCHEDULE_S3_ENDPOINT_URL", "")
