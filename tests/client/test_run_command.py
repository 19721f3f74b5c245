"""`pdfreports run` against a scripted service: --retry-failed sends again only what a
retry can fix, says what it did not retry, and always saves the PDFs that exist."""

from __future__ import annotations

from click.testing import CliRunner

from pdfreports.cli import cli
from tests.client.scripted_server import scripted_server

RUN_ID = "5f0c6d8e-0000-4000-8000-000000000001"


def _finished(url: str, *, retryable: bool | None) -> dict:
    records = [
        {"index": i, "job_id": f"j{i}", "status": "completed", "error": None} for i in range(49)
    ]
    bad = {"index": 49, "job_id": None, "status": "invalid", "error": "row 51: number required"}
    if retryable is not None:
        bad["retryable"] = retryable
        for record in records:
            record["retryable"] = False
    return {
        "run_id": RUN_ID,
        "status": "partial",
        "total": 50,
        "completed": 49,
        "failed": 1,
        "progress": 100,
        "download_url": f"{url}/download?token=t",
        "records": [*records, bad],
    }


def _run(server, tmp_path):
    records = tmp_path / "inv.csv"
    records.write_text("number\n" + "".join(f"{i}\n" for i in range(50)))
    out = tmp_path / "out.pdf"
    result = CliRunner().invoke(
        cli,
        [
            "--url",
            server.url,
            "--api-key",
            "k",
            "run",
            "invoice",
            str(records),
            "--combined",
            str(out),
            "--retry-failed",
        ],
    )
    return result, out


def test_retry_failed_with_only_a_refused_record_retries_nothing_and_saves_the_rest(tmp_path):
    with scripted_server([]) as server:
        server.answers += [
            (202, {}, {"run_id": RUN_ID, "status": "running", "total": 50, "failed": 1}),
            (200, {}, _finished(server.url, retryable=False)),
            (200, {}, {"pdf": "the combined PDF"}),
        ]
        result, out = _run(server, tmp_path)
    assert result.exit_code == 1, result.output
    assert "Retrying" not in result.output
    assert "Not retried: 1 records a retry cannot fix" in result.output
    assert "record 50: row 51: number required" in result.output
    assert [s.path.split("?")[0] for s in server.seen] == [
        "/api/v1/runs",
        f"/api/v1/runs/{RUN_ID}",
        "/download",
    ]
    assert out.read_bytes() == b'{"pdf": "the combined PDF"}'


def test_a_409_from_retry_failed_is_reported_and_the_pdfs_still_saved(tmp_path):
    """A service that does not say which records are retryable: the CLI asks, and a 409
    (nothing to retry) is a message, not an exit without the file."""
    conflict = {"error": "Run has no failed record a retry can fix.", "code": "conflict"}
    with scripted_server([]) as server:
        finished = _finished(server.url, retryable=None)
        finished["records"][49]["status"] = "failed"
        server.answers += [
            (202, {}, {"run_id": RUN_ID, "status": "running", "total": 50, "failed": 1}),
            (200, {}, finished),
            (409, {}, conflict),
            (200, {}, {"pdf": "the combined PDF"}),
        ]
        result, out = _run(server, tmp_path)
    assert result.exit_code == 1, result.output
    assert "Retrying 1 failed records" in result.output
    assert "Not retried: Run has no failed record a retry can fix." in result.output
    assert out.exists()
