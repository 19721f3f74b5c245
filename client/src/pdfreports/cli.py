"""The `pdfreports` command: submit, follow and download reports, manage templates.

Exit codes: 0 done, 1 the job failed or was cancelled, 2 bad usage, 3 the service refused
the request or could not be reached, 4 gave up waiting, 130 interrupted."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn

import click
from rich.console import Console
from rich.table import Table

from pdfreports.client import Client, Job
from pdfreports.errors import ApiError, JobFailed, PdfReportsError, WaitTimeout
from pdfreports.models import JobState
from pdfreports.progress import JobProgress, RunProgress, describe, pages_text
from pdfreports.retry import RetryEvent

EXIT_JOB_FAILED, EXIT_SERVICE, EXIT_TIMEOUT, EXIT_INTERRUPTED = 1, 3, 4, 130
SLUG = re.compile(r"^[-a-zA-Z0-9_]+$")
ENGINE_BY_SUFFIX = {
    ".hbs": "handlebars",
    ".handlebars": "handlebars",
    ".j2": "jinja2",
    ".jinja": "jinja2",
    ".jinja2": "jinja2",
}

# soft_wrap: messages are never broken at the terminal width (logs and pipes keep one line).
err = Console(stderr=True, soft_wrap=True)


class Settings:
    def __init__(self, url: str, api_key: str | None, timeout: float) -> None:
        self.url, self.api_key, self.timeout = url, api_key, timeout

    def client(self) -> Client:
        if not self.api_key:
            raise click.UsageError("no API key: pass --api-key or set PDFREPORTS_API_KEY")
        return Client(self.url, self.api_key, timeout=self.timeout, on_retry=_say_retry)


def _say_retry(event: RetryEvent) -> None:
    err.print(f"[dim]{event.reason}; trying again in {event.delay:.1f} s[/]", highlight=False)


def _fail(code: int, message: str) -> NoReturn:
    err.print(f"[red]error:[/] {message}", highlight=False)
    sys.exit(code)


@contextmanager
def _service_errors() -> Iterator[None]:
    """Turn the client's exceptions into a message and an exit code."""
    try:
        yield
    except JobFailed as exc:
        state = exc.state
        reason = state.error or f"the job was {state.status}"
        code = f" [{state.error_code}]" if state.error_code else ""
        _fail(EXIT_JOB_FAILED, f"job {state.job_id} {state.status}: {reason}{code}")
    except WaitTimeout as exc:
        _fail(EXIT_TIMEOUT, f"{exc}; follow it with `pdfreports status {exc.state.job_id} --wait`")
    except ApiError as exc:
        _fail(
            EXIT_SERVICE,
            f"{exc.message} (HTTP {exc.status_code}{', ' + exc.code if exc.code else ''})",
        )
    except PdfReportsError as exc:
        _fail(EXIT_SERVICE, str(exc))
    except KeyboardInterrupt:
        _fail(EXIT_INTERRUPTED, "interrupted (the job goes on; see `pdfreports status`)")


def _read_json_object(path: str, what: str) -> dict[str, Any]:
    text = sys.stdin.read() if path == "-" else _read_text(path, what)
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise click.BadParameter(f"{path} is not valid JSON: {exc}", param_hint=what) from exc
    if not isinstance(value, dict):
        raise click.BadParameter(f"{path} must hold a JSON object", param_hint=what)
    return value


def _read_text(path: str, what: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise click.BadParameter(f"cannot read {path}: {exc.strerror}", param_hint=what) from exc


def _print_json(value: Any) -> None:
    click.echo(json.dumps(value, indent=2))


def _follow(job: Job, *, timeout: float | None, poll: bool) -> JobState:
    with JobProgress(err, job.job_id) as progress:
        return job.wait(
            timeout=timeout, on_update=progress.update, transport="poll" if poll else "auto"
        )


def _save(job: Job, out: Path) -> None:
    path = job.download(out)
    state = job.state
    pages = f"{pages_text(state.page_count)}, " if state and state.page_count else ""
    err.print(f"Saved {path} ({pages}{path.stat().st_size:,} bytes)", highlight=False)


wait_timeout = click.option(
    "--wait-timeout", type=float, default=None, help="Give up waiting after this many seconds."
)
poll_option = click.option(
    "--poll", is_flag=True, help="Follow by polling instead of Server-Sent Events."
)
json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON.")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--url",
    envvar="PDFREPORTS_URL",
    default="http://127.0.0.1:8000",
    show_default=True,
    help="The service's address (or PDFREPORTS_URL).",
)
@click.option("--api-key", envvar="PDFREPORTS_API_KEY", help="API key (or PDFREPORTS_API_KEY).")
@click.option("--timeout", type=float, default=30.0, show_default=True, help="Per request, s.")
@click.version_option(package_name="pdfreports")
@click.pass_context
def cli(ctx: click.Context, url: str, api_key: str | None, timeout: float) -> None:
    """Turn HTML templates and JSON data into PDFs with the PDF report service."""
    ctx.obj = Settings(url, api_key, timeout)


@cli.command()
@click.argument("template_or_file")
@click.option(
    "--data",
    "data_path",
    metavar="FILE",
    help="JSON object of data ('-': stdin). Default: a template's sample data; {} inline.",
)
@click.option("--options", "options_path", metavar="FILE", help="JSON object of options.")
@click.option("--filename", help="Download name of the PDF.")
@click.option("--engine", type=click.Choice(["handlebars", "jinja2", "raw"]), help="Inline only.")
@click.option("--callback-url", help="URL told when the job ends.")
@click.option(
    "--renderer",
    type=click.Choice(["xhtml2pdf", "weasyprint", "chromium"]),
    help="What lays the HTML out (default: the template's).",
)
@click.option(
    "--cache/--no-cache",
    default=None,
    help="Reuse the PDF of an identical earlier job (default: the template's setting).",
)
@click.option("--idempotency-key", help="Re-running with the same key returns the same job.")
@click.option("--wait", is_flag=True, help="Follow the job to its end with a progress bar.")
@click.option("--out", type=click.Path(path_type=Path), help="Save the PDF here (implies --wait).")
@wait_timeout
@poll_option
@json_option
@click.pass_obj
def submit(
    settings: Settings,
    template_or_file: str,
    data_path: str | None,
    options_path: str | None,
    filename: str | None,
    engine: str | None,
    callback_url: str | None,
    renderer: str | None,
    cache: bool | None,
    idempotency_key: str | None,
    wait: bool,
    out: Path | None,
    wait_timeout: float | None,
    poll: bool,
    as_json: bool,
) -> None:
    """Submit a report: a stored template's slug, or a file of inline HTML
    (.hbs/.j2/.html). Prints the job id; with --wait or --out follows it to the end.
    Without --data a template gets its own sample data, as `templates preview` does."""
    data = _read_json_object(data_path, "--data") if data_path else None
    options = _read_json_object(options_path, "--options") if options_path else {}
    if filename:
        options["filename"] = filename
    source = Path(template_or_file)
    inline: dict[str, Any]
    if source.is_file():
        inline = {"html_template": _read_text(template_or_file, "TEMPLATE_OR_FILE")}
        engine = engine or ENGINE_BY_SUFFIX.get(source.suffix.lower())
    elif SLUG.match(template_or_file):
        if engine:
            raise click.BadParameter("--engine is for inline files; a template has its own")
        inline = {"template": template_or_file}
    else:
        raise click.BadParameter(
            f"{template_or_file!r} is neither a file nor a template slug",
            param_hint="TEMPLATE_OR_FILE",
        )
    with settings.client() as client, _service_errors():
        if data is None and "template" in inline:
            data = client.get_template(inline["template"]).raw.get("sample_data") or {}
            err.print(
                f"No --data: sending the sample data of {inline['template']}", highlight=False
            )
        job = client.submit(
            **inline,
            data=data or {},
            engine=engine,
            options=options,
            callback_url=callback_url,
            idempotency_key=idempotency_key,
            renderer=renderer,
            cache=cache,
        )
        err.print(f"Submitted job {job.job_id}", highlight=False)
        state = _follow(job, timeout=wait_timeout, poll=poll) if wait or out else job.refresh()
        if out:
            _save(job, out)
        if as_json:
            _print_json(state.raw)
        else:
            click.echo(job.job_id)


@cli.command()
@click.argument("job_id")
@click.option("--wait", is_flag=True, help="Follow the job to its end with a progress bar.")
@wait_timeout
@poll_option
@json_option
@click.pass_obj
def status(
    settings: Settings,
    job_id: str,
    wait: bool,
    wait_timeout: float | None,
    poll: bool,
    as_json: bool,
) -> None:
    """Show a job's state (exit 1 if it failed or was cancelled)."""
    with settings.client() as client, _service_errors():
        job = client.job(job_id)
        state = _follow(job, timeout=wait_timeout, poll=poll) if wait else job.refresh()
        if as_json:
            _print_json(state.raw)
        else:
            _print_state(state)
        if state.finished and not state.succeeded:
            raise JobFailed(state)


def _print_state(state: JobState) -> None:
    table = Table.grid(padding=(0, 2))
    table.add_column()
    table.add_column(overflow="fold")  # a signed link is copied whole, never cut short
    rows: list[tuple[str, Any]] = [
        ("job", state.job_id),
        ("status", state.status),
        ("stage", describe(state)),
        ("progress", f"{state.progress}%"),
        ("attempts", state.attempts),
        ("pages", state.page_count),
        ("error", state.error and f"{state.error} [{state.error_code}]"),
        ("warnings", "; ".join(state.warnings)),
        ("created", state.created_at),
        ("completed", state.completed_at),
        ("pdf", state.pdf_url),
    ]
    for name, value in rows:
        if value not in (None, ""):
            table.add_row(f"[bold]{name}[/]", str(value))
    Console().print(table, highlight=False)


@cli.command()
@click.argument("job_id")
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    default=Path("."),
    show_default=True,
    help="File, or directory for the service's file name.",
)
@click.option("--wait", is_flag=True, help="Wait for the job to complete first.")
@wait_timeout
@poll_option
@click.pass_obj
def download(
    settings: Settings,
    job_id: str,
    out: Path,
    wait: bool,
    wait_timeout: float | None,
    poll: bool,
) -> None:
    """Save a completed job's PDF."""
    with settings.client() as client, _service_errors():
        job = client.job(job_id)
        if wait:
            _follow(job, timeout=wait_timeout, poll=poll)
        _save(job, out)


@cli.command("run")
@click.argument("template")
@click.argument("records", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--zip", "zip_out", type=click.Path(dir_okay=False, path_type=Path), help="Save the ZIP here."
)
@click.option(
    "--combined",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Save one combined PDF (a bookmark per record) here instead.",
)
@click.option("--filename-pattern", default="", help="Each PDF's name, e.g. 'invoice-{number}'.")
@click.option(
    "--retry-failed", is_flag=True, help="Once done, render the failed records again once."
)
@wait_timeout
@json_option
@click.pass_obj
def run_command(
    settings: Settings,
    template: str,
    records: Path,
    zip_out: Path | None,
    combined: Path | None,
    filename_pattern: str,
    retry_failed: bool,
    wait_timeout: float | None,
    as_json: bool,
) -> None:
    """Render TEMPLATE once per record of RECORDS (a CSV with a header row, a JSON array
    or NDJSON), with a progress bar counted in records; save the ZIP (--zip) or combined
    PDF (--combined). Exit 1 if some record failed (each is listed)."""
    if zip_out and combined:
        raise click.UsageError("choose one of --zip and --combined")
    output = "combined" if combined else "zip" if zip_out else "separate"
    with settings.client() as client, _service_errors():
        run = client.start_run(
            template, file=records, output=output, filename_pattern=filename_pattern
        )
        err.print(f"Started run {run.run_id}", highlight=False)
        with RunProgress(err, run.run_id) as progress:
            state = run.wait(timeout=wait_timeout, on_update=progress.update)
            if retry_failed and state.failed and state.status != "completed":
                err.print(f"Retrying {state.failed} failed records", highlight=False)
                run.retry_failed()
                state = run.wait(timeout=wait_timeout, on_update=progress.update)
        for record in state.records:
            if record.status != "completed":
                err.print(
                    f"[red]record {record.index}:[/] {record.error or record.status}",
                    highlight=False,
                )
        target = zip_out or combined
        if target and state.download_url:
            path = run.download(target)
            err.print(f"Saved {path} ({path.stat().st_size:,} bytes)", highlight=False)
        if as_json:
            _print_json(state.raw)
        else:
            click.echo(run.run_id)
        if state.status != "completed":
            sys.exit(EXIT_JOB_FAILED)


@cli.group()
def templates() -> None:
    """List, push and preview stored templates."""


@templates.command("list")
@click.option("--archived", is_flag=True, help="Include archived templates.")
@json_option
@click.pass_obj
def templates_list(settings: Settings, archived: bool, as_json: bool) -> None:
    """My templates and the built-in samples."""
    with settings.client() as client, _service_errors():
        found = client.list_templates(include_archived=archived)
    if as_json:
        _print_json([t.raw for t in found])
        return
    table = Table("slug", "name", "engine", "version", "owner")
    for t in found:
        owner = "built-in" if t.builtin else "mine"
        table.add_row(t.slug, t.name, t.engine, str(t.version), owner + (", archived" * t.archived))
    Console().print(table)


def _sibling(source: Path, suffix: str) -> Path | None:
    """templates/samples/invoice.hbs -> invoice.css, invoice.json, invoice.schema.json."""
    path = source.with_suffix(suffix)
    return path if path.is_file() else None


@templates.command("push")
@click.argument("source", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--slug", help="Defaults to the file's name without its suffix.")
@click.option("--name", help="Display name (defaults to the slug when creating).")
@click.option("--engine", type=click.Choice(["handlebars", "jinja2", "raw"]))
@click.option("--css", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--schema", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--sample-data", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.pass_obj
def templates_push(
    settings: Settings,
    source: Path,
    slug: str | None,
    name: str | None,
    engine: str | None,
    css: Path | None,
    schema: Path | None,
    sample_data: Path | None,
) -> None:
    """Create or update a template from SOURCE. Files beside it with the same stem are
    sent too unless named: STEM.css, STEM.schema.json, STEM.json (sample data)."""
    slug = slug or source.stem
    if not SLUG.match(slug):
        raise click.BadParameter(f"{slug!r} is not a valid slug; pass --slug", param_hint="--slug")
    fields: dict[str, Any] = {"html": _read_text(str(source), "SOURCE")}
    engine = engine or ENGINE_BY_SUFFIX.get(source.suffix.lower())
    if engine:
        fields["engine"] = engine
    if name:
        fields["name"] = name
    if css := css or _sibling(source, ".css"):
        fields["css"] = _read_text(str(css), "--css")
    if schema := schema or _sibling(source, ".schema.json"):
        fields["schema"] = _read_json_object(str(schema), "--schema")
    if sample_data := sample_data or _sibling(source, ".json"):
        fields["sample_data"] = _read_json_object(str(sample_data), "--sample-data")
    with settings.client() as client, _service_errors():
        template, created = client.push_template(slug, **fields)
    verb = "Created" if created else "Updated"
    err.print(f"{verb} {template.slug}, version {template.version}", highlight=False)


@templates.command("preview")
@click.argument("slug")
@click.option("--data", "data_path", metavar="FILE", help="JSON data (default: sample data).")
@click.option("--width", type=click.IntRange(100, 1600), help="Image width in pixels.")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), help="Default SLUG.png.")
@click.pass_obj
def templates_preview(
    settings: Settings, slug: str, data_path: str | None, width: int | None, out: Path | None
) -> None:
    """Render the template's first page to a PNG file."""
    data = _read_json_object(data_path, "--data") if data_path else None
    with settings.client() as client, _service_errors():
        png = client.preview_template(slug, data=data, width=width)
    target = out or Path(f"{slug}.png")
    target.write_bytes(png)
    err.print(f"Saved {target} ({len(png):,} bytes)", highlight=False)


def main(argv: list[str] | None = None) -> None:
    cli(args=argv, prog_name="pdfreports")
