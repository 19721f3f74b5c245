"""Typed views of the service's JSON: a job's state and a stored template."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

TERMINAL_STATUSES = frozenset({"completed", "failed", "cancelled"})


@dataclass(frozen=True)
class JobState:
    """One snapshot of a job, as the status endpoint, SSE and WebSocket send it."""

    job_id: str
    status: str
    progress: int = 0
    stage: str = ""
    seq: int = 0
    error: str | None = None
    error_code: str | None = None
    attempts: int = 0
    page_count: int | None = None
    size_bytes: int | None = None
    warnings: list[str] = field(default_factory=list)
    created_at: str | None = None
    started_at: str | None = None
    completed_at: str | None = None
    status_url: str | None = None
    pdf_url: str | None = None
    # True once the service's retention deleted the PDF (no pdf_url any more).
    expired: bool = False
    # The job whose PDF this one reuses (a result-cache hit), or None.
    cached_from: str | None = None
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def finished(self) -> bool:
        return self.status in TERMINAL_STATUSES

    @property
    def succeeded(self) -> bool:
        return self.status == "completed"

    @classmethod
    def from_json(cls, body: dict[str, Any]) -> JobState:
        return cls(
            job_id=str(body["job_id"]),
            status=str(body["status"]),
            progress=int(body.get("progress") or 0),
            stage=str(body.get("stage") or ""),
            seq=int(body.get("seq") or 0),
            error=body.get("error"),
            error_code=body.get("error_code"),
            attempts=int(body.get("attempts") or 0),
            page_count=body.get("page_count"),
            size_bytes=body.get("size_bytes"),
            warnings=list(body.get("warnings") or []),
            created_at=body.get("created_at"),
            started_at=body.get("started_at"),
            completed_at=body.get("completed_at"),
            status_url=body.get("status_url"),
            pdf_url=body.get("pdf_url"),
            expired=bool(body.get("expired")),
            cached_from=body.get("cached_from"),
            raw=dict(body),
        )


@dataclass(frozen=True)
class Template:
    """A stored template as the template API lists it."""

    slug: str
    name: str
    engine: str
    version: int | None
    builtin: bool
    archived: bool
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    draft_version: int | None = None  # an unpublished edit; jobs render `version`

    @classmethod
    def from_json(cls, body: dict[str, Any]) -> Template:
        return cls(
            slug=str(body["slug"]),
            name=str(body.get("name") or ""),
            engine=str(body.get("engine") or ""),
            version=body.get("version"),
            builtin=bool(body.get("builtin")),
            archived=bool(body.get("archived")),
            raw=dict(body),
            draft_version=body.get("draft_version"),
        )


@dataclass(frozen=True)
class RunRecordState:
    index: int
    job_id: str | None
    status: str  # the job's status, or "invalid": refused at submit (see error)
    error: str | None = None
    # The service's word on whether retry-failed can fix it; None from a service that
    # does not say (then a failed job may be, a record refused at submit never is).
    retryable: bool | None = None

    @property
    def may_retry(self) -> bool:
        return self.retryable if self.retryable is not None else self.status == "failed"


@dataclass(frozen=True)
class RunState:
    """One snapshot of a run (many records of one template), counted in records."""

    run_id: str
    status: str  # running, completed, partial (some failed) or failed (none rendered)
    total: int = 0
    completed: int = 0
    failed: int = 0
    progress: int = 0
    seq: int = 0
    download_url: str | None = None
    records: list[RunRecordState] = field(default_factory=list)
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def finished(self) -> bool:
        return self.status != "running"

    @property
    def succeeded(self) -> bool:
        return self.status == "completed"

    @classmethod
    def from_json(cls, body: dict[str, Any]) -> RunState:
        return cls(
            run_id=str(body["run_id"]),
            status=str(body["status"]),
            total=int(body.get("total") or 0),
            completed=int(body.get("completed") or 0),
            failed=int(body.get("failed") or 0),
            progress=int(body.get("progress") or 0),
            seq=int(body.get("seq") or 0),
            download_url=body.get("download_url"),
            records=[
                RunRecordState(
                    index=int(r["index"]),
                    job_id=r.get("job_id"),
                    status=str(r.get("status") or ""),
                    error=r.get("error"),
                    retryable=r.get("retryable"),
                )
                for r in body.get("records") or []
            ],
            raw=dict(body),
        )
