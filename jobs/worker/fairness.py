"""Fair dispatch between tenants (workspaces): which queued job a free worker slot should take.

Messages reach the workers in the order they were sent, so 1,000 jobs from one tenant
would otherwise run before a job another tenant sends a moment later. Each worker slot
that takes a render message asks first whether another tenant has a job waiting while
running fewer jobs than the message's tenant; if so it runs that job instead and sends
the message it took back to the queue. The effect is round robin between the tenants
that have work waiting, weighted by how many slots each already holds: a tenant's
burst keeps every idle slot busy, and a newcomer gets the next slot that frees up.

Limits: a render already running is never interrupted, so a newcomer waits for one slot
to free (at most one render time); within a tenant, jobs run oldest first; a job waiting
for a retry's backoff (attempts > 0) is only started by its own message, so fairness
never cuts a backoff short. The choice runs inside the claim's own statement (one round trip
per render message for both: job_fairer_choice).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any
from uuid import UUID

from django.conf import settings
from django.db import connection
from django.db.models import Count, UUIDField
from django.db.models.expressions import RawSQL

from jobs.models import JobStatus, PdfJob
from jobs.quotas import holding_a_worker, still_rendering_since

# The busy count compiled once a process (per database vendor), with a stand-in for its
# one moving value, the heartbeat cutoff, found again among the parameters: composing it
# through the ORM for every render message cost ~0.4 ms of a worker's CPU.
_STAND_IN = datetime(2000, 1, 1, 0, 0, 0, 123456, tzinfo=UTC)
_busy_compiled: dict[str, tuple[str, tuple[Any, ...], int]] = {}


def _busy_sql() -> tuple[str, tuple[Any, ...]]:
    """Jobs holding a worker per workspace, as SQL: the ORM compiles jobs.quotas's rule,
    so what counts as busy stays defined in one place."""
    heartbeat = PdfJob._meta.get_field("heartbeat_at")
    compiled = _busy_compiled.get(connection.vendor)
    if compiled is None:
        busy = (
            PdfJob.objects.filter(holding_a_worker(since=_STAND_IN))
            .order_by()
            .values("workspace")
            .annotate(n=Count("pk"))
            .values("workspace", "n")
        )
        sql, params = busy.query.sql_with_params()
        cutoff = params.index(heartbeat.get_db_prep_value(_STAND_IN, connection))
        compiled = _busy_compiled[connection.vendor] = (sql, tuple(params), cutoff)
    sql, params, cutoff = compiled
    now = heartbeat.get_db_prep_value(still_rendering_since(), connection)
    return sql, (*params[:cutoff], now, *params[cutoff + 1 :])


# One statement (it runs for every render message): the message's tenant and how many
# jobs it has holding a worker, then the least busy other tenant's oldest first-attempt
# job if that tenant holds fewer. A tenant with none busy (`mine.n > 0` false: a one-time
# filter, so the queue is not scanned) or a job no longer queued finds nothing.
# `IS DISTINCT FROM` keeps jobs without a workspace, as the ORM's exclude() did.
_FAIRER_SQL = """
WITH busy (workspace_id, n) AS ({busy}),
mine AS (
    SELECT j.workspace_id, COALESCE(b.n, 0) AS n
    FROM {table} j LEFT JOIN busy b ON b.workspace_id = j.workspace_id
    WHERE j.job_id = %s AND j.status = %s
)
SELECT q.job_id
FROM {table} q CROSS JOIN mine LEFT JOIN busy b ON b.workspace_id = q.workspace_id
WHERE mine.n > 0
  AND q.status = %s AND q.attempts = 0
  AND q.workspace_id IS DISTINCT FROM mine.workspace_id
  AND COALESCE(b.n, 0) < mine.n
ORDER BY COALESCE(b.n, 0), q.created_at
LIMIT 1
"""


def _fairer_sql(job_id: UUID | str) -> tuple[str, tuple[Any, ...]]:
    # By workspace: a team's members share one turn, as they share its quotas.
    busy, params = _busy_sql()
    sql = _FAIRER_SQL.format(busy=busy, table=connection.ops.quote_name(PdfJob._meta.db_table))
    queued = JobStatus.QUEUED.value
    # As the ORM would bind it: SQLite stores a UUID as its hex and cannot bind one.
    key = PdfJob._meta.get_field("job_id").get_db_prep_value(UUID(str(job_id)), connection)
    return sql, (*params, key, queued, queued)


def job_fairer_than(*, job_id: UUID | str) -> UUID | None:
    """A queued job of a tenant with fewer jobs processing than `job_id`'s tenant (the
    least busy tenant's oldest), or None when `job_id` is as fair a choice as any."""
    if not settings.PDF_FAIR_DISPATCH:
        return None
    sql, params = _fairer_sql(job_id)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
    return None if row is None else UUID(str(row[0]))


def job_fairer_choice(*, job_id: UUID | str) -> RawSQL | None:
    """`job_fairer_than` as a subquery (its job id, or NULL), for the claim to run in its
    own statement (jobs.transitions.job_claim's `instead`): the render message's one
    round trip for both. None when fair dispatch is off."""
    if not settings.PDF_FAIR_DISPATCH:
        return None
    sql, params = _fairer_sql(job_id)
    return RawSQL(sql, params, output_field=UUIDField())  # noqa: S611 - names and a parameter
