"""Schedules: a template rendered on a cron expression and delivered by mail, webhook or S3."""
