"""The runs app's error codes (bulk runs and batches): each with its HTTP status and what a
person should do about it, as rendering.error_codes gives its own (docs/reference/errors.md)."""

from __future__ import annotations

from enum import StrEnum

from rendering.error_codes import CodeInfo


class RunErrorCode(StrEnum):
    RUN_RECORDS_INVALID = "run_records_invalid"
    TOO_MANY_ITEMS = "too_many_items"


CODES: dict[RunErrorCode, CodeInfo] = {
    RunErrorCode.RUN_RECORDS_INVALID: CodeInfo(
        422,
        False,
        "Correct the records the answer's `records` list names (each with its row and "
        "field), then start the run again.",
    ),
    RunErrorCode.TOO_MANY_ITEMS: CodeInfo(
        400,
        False,
        "Send the batch in several requests of at most PDF_MAX_BATCH items (a run: at most "
        "RUN_MAX_RECORDS records).",
    ),
}
