"""The runs app's error codes (bulk runs and batches), declared as rendering.error_codes says."""

from __future__ import annotations

from rendering.error_codes import CodeEnum


class RunErrorCode(CodeEnum):
    RUN_RECORDS_INVALID = (
        "run_records_invalid",
        422,
        False,
        "Correct the records the answer's `records` list names (each with its row and "
        "field), then start the run again.",
    )
    TOO_MANY_ITEMS = (
        "too_many_items",
        400,
        False,
        "Send the batch in several requests of at most PDF_MAX_BATCH items (a run: at most "
        "RUN_MAX_RECORDS records).",
    )
