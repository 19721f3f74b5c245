"""What the job core announces to the features built on it. The core never imports a
feature: runs and schedules connect their receivers in their `AppConfig.ready()`."""

from __future__ import annotations

from django.dispatch import Signal

# Sent after the transaction that changed a job's status commits, for every status but
# "processing" (a job that starts changes nothing a feature counts): a final status, or
# queued again by a retry or a re-drive. Arguments: `job` (the PdfJob as the transition
# returned it) and `new` (True for a job created in that status, such as a result-cache
# hit, which had no transition). Sent robustly: a receiver's error is logged, never
# raised into the worker's transition, and the next transition heals what it missed.
job_settled = Signal()

# Sent before the mail to a job's owner is queued, for a job of a batch (`job`); a
# receiver that returns False holds the mail back (a feature that mails once for the whole
# batch: a thousand invoices are not a thousand mails).
job_mail_wanted = Signal()
