"""The `pdfreports` command: submit, follow and download reports, manage templates and
schedules.

Exit codes: 0 done, 1 the job failed or was cancelled, 2 bad usage, 3 the service refused
the request or could not be reached, 4 gave up waiting, 130 interrupted."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn

import click
import watchfiles
from rich.console import Console
from rich.table import Column, Table

from pdfreports.client import Client, Job, Run
from pdfreports.errors import ApiError, JobFailed, PdfReportsError, WaitTimeout
from pdfreports.folder import (
    WATCHED,
    FolderError,
    folder_read,
    folder_write,
    template_with_draft,
)
from pdfreports.models import JobState, RunState, Template
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
    ".liquid": "liquid",
    ".mustache": "mustache",
    ".ejs": "ejs",
}
# The service's engines (rendering.engines.ENGINE_NAMES; the client does not import it).
ENGINES = [
    "handlebars",
    "ejs",
    "mustache",
    "liquid",
    "django",
    "jinja2",
    "raw",
    "pdf-form",
    "docx",
]

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
@click.option("--engine", type=click.Choice(ENGINES), help="Inline only.")
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
                state = _retry_what_can_be(run, state, wait_timeout, progress.update)
        for record in state.records:
            if record.status != "completed":
                err.print(
                    f"[red]record {record.index + 1}:[/] {record.error or record.status}",
                    highlight=False,
                )
        # Whatever rendered is saved, whatever else failed: 49 good PDFs are never lost
        # to the one that could not be rendered.
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


def _retry_what_can_be(
    run: Run, state: RunState, timeout: float | None, on_update: Callable[[RunState], None]
) -> RunState:
    """Send again only the records a retry can fix, and say which were not retried (a
    record refused at submit has no job; one failed for its data fails the same way)."""
    failed = [r for r in state.records if r.status != "completed"]
    retryable = [r for r in failed if r.may_retry]
    kept = [r for r in failed if not r.may_retry]
    if kept:
        listed = ", ".join(str(r.index + 1) for r in kept[:20]) + (", …" * (len(kept) > 20))
        err.print(
            f"Not retried: {len(kept)} records a retry cannot fix (refused at submit, or "
            f"failed for their data or template; fix them and start a new run): {listed}",
            highlight=False,
        )
    # A run with more records than one answer lists may hold retryable ones further on.
    if not retryable and not state.raw.get("records_next"):
        return state
    err.print(f"Retrying {len(retryable) or 'the'} failed records", highlight=False)
    try:
        run.retry_failed()
    except ApiError as exc:
        if exc.status_code != 409:
            raise
        err.print(f"Not retried: {exc.message}", highlight=False)
        return state
    return run.wait(timeout=timeout, on_update=on_update)


@cli.group()
def templates() -> None:
    """List, pull, push, watch, publish, diff and preview stored templates."""


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


def _fields_from_file(
    source: Path,
    *,
    slug: str | None,
    engine: str | None,
    css: Path | None,
    schema: Path | None,
    sample_data: Path | None,
) -> tuple[str, dict[str, Any]]:
    slug = slug or source.stem
    fields: dict[str, Any] = {"html": _read_text(str(source), "SOURCE")}
    engine = engine or ENGINE_BY_SUFFIX.get(source.suffix.lower())
    if engine:
        fields["engine"] = engine
    if css := css or _sibling(source, ".css"):
        fields["css"] = _read_text(str(css), "--css")
    if schema := schema or _sibling(source, ".schema.json"):
        fields["schema"] = _read_json_object(str(schema), "--schema")
    if sample_data := sample_data or _sibling(source, ".json"):
        fields["sample_data"] = _read_json_object(str(sample_data), "--sample-data")
    return slug, fields


def _fields_from_folder(directory: Path, *, slug: str | None) -> tuple[str, dict[str, Any]]:
    try:
        found, fields = folder_read(directory)
    except FolderError as exc:
        raise click.BadParameter(str(exc), param_hint="SOURCE") from exc
    return slug or found, fields


def _push(client: Client, slug: str, fields: dict[str, Any], *, publish: bool) -> Template:
    """Send the fields; say what became of them (created, a draft, published, unchanged)."""
    template, created = client.push_template(slug, **fields)
    if created:
        err.print(f"Created {slug}, version {template.version}", highlight=False)
        return template
    if publish and template.draft_version is not None:
        draft = template.draft_version
        template = client.publish_template(slug)
        err.print(
            f"Published {slug}, version {template.version} (was draft {draft})", highlight=False
        )
    elif template.draft_version is not None:
        err.print(
            f"Saved draft {template.draft_version} of {slug}; version {template.version} "
            f"stays published (push --publish, or `pdfreports templates publish {slug}`)",
            highlight=False,
        )
    else:
        err.print(f"Updated {slug}, version {template.version} (no draft)", highlight=False)
    return template


@templates.command("push")
@click.argument("source", type=click.Path(exists=True, path_type=Path))
@click.option("--slug", help="Defaults to template.toml's slug, or the file's stem.")
@click.option("--name", help="Display name (defaults to the slug when creating).")
@click.option("--engine", type=click.Choice(ENGINES))
@click.option("--css", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--schema", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--sample-data", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--publish", is_flag=True, help="Publish the change (default: save a draft).")
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
    publish: bool,
) -> None:
    """Create or update a template from SOURCE: a template folder (template.toml,
    template.html, style.css, helpers.js, schema.json, sample.json; see `templates pull`)
    or a single file, with the files beside it of the same stem unless named: STEM.css,
    STEM.schema.json, STEM.json (sample data). A change to an existing template is saved
    as a draft; jobs render it once it is published (--publish)."""
    if source.is_dir():
        slug, fields = _fields_from_folder(source, slug=slug)
    else:
        slug, fields = _fields_from_file(
            source, slug=slug, engine=engine, css=css, schema=schema, sample_data=sample_data
        )
    if not SLUG.match(slug):
        raise click.BadParameter(f"{slug!r} is not a valid slug; pass --slug", param_hint="--slug")
    if name:
        fields["name"] = name
    with settings.client() as client, _service_errors():
        _push(client, slug, fields, publish=publish)


@templates.command("pull")
@click.argument("slug")
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
@click.option("--draft", is_flag=True, help="Write the draft (default: the published version).")
@click.pass_obj
def templates_pull(settings: Settings, slug: str, directory: Path, draft: bool) -> None:
    """Write a template as a folder DIRECTORY to keep in git (push sends it back)."""
    with settings.client() as client, _service_errors():
        body = client.get_template(slug).raw
    if draft and not body.get("draft"):
        err.print(f"{slug} has no draft; writing the published version", highlight=False)
    written = folder_write(directory, template_with_draft(body) if draft else body)
    version = body.get("draft_version") if draft and body.get("draft") else body.get("version")
    names = ", ".join(path.name for path in written)
    err.print(f"Wrote {slug} version {version} to {directory}: {names}", highlight=False)


@templates.command("watch")
@click.argument("directory", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--publish", is_flag=True, help="Publish every save (default: save drafts).")
@click.option(
    "--preview-out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="After each push, save the draft's first page here as PNG.",
)
@click.pass_obj
def templates_watch(
    settings: Settings, directory: Path, publish: bool, preview_out: Path | None
) -> None:
    """Push the template folder DIRECTORY on every save (as a draft unless --publish) and
    print where to see it: the studio page, and --preview-out's PNG. Ctrl-C stops."""
    with settings.client() as client:

        def push_once() -> None:
            try:
                slug, fields = folder_read(directory)
            except FolderError as exc:
                err.print(f"[red]not pushed:[/] {exc}", highlight=False)
                return
            try:
                template = _push(client, slug, fields, publish=publish)
                # Flushed at once: whoever reads a watcher's output reads it live.
                click.echo(f"Studio: {settings.url.rstrip('/')}/templates/{slug}/edit")
                sys.stdout.flush()
                if preview_out is not None:
                    version = "draft" if template.draft_version else None
                    preview_out.write_bytes(client.preview_template(slug, version=version))
                    click.echo(f"Preview: {preview_out}")
                    sys.stdout.flush()
            except (ApiError, PdfReportsError) as exc:
                message = exc.message if isinstance(exc, ApiError) else str(exc)
                err.print(f"[red]not pushed:[/] {message}", highlight=False)

        push_once()
        watching = False
        try:
            # An empty set each second says the watcher is running: "Watching" is printed
            # only then, so a save right after it is never missed.
            for changes in watchfiles.watch(
                directory,
                debounce=200,
                rust_timeout=1000,
                yield_on_timeout=True,
                raise_interrupt=False,
            ):
                if not watching:
                    watching = True
                    err.print(f"Watching {directory} (Ctrl-C stops)", highlight=False)
                if any(Path(path).name in WATCHED for _, path in changes):
                    push_once()
        except KeyboardInterrupt:
            pass


@templates.command("publish")
@click.argument("slug")
@click.pass_obj
def templates_publish(settings: Settings, slug: str) -> None:
    """Publish the template's draft: new jobs render it."""
    with settings.client() as client, _service_errors():
        template = client.publish_template(slug)
    err.print(f"{slug}: version {template.version} is published", highlight=False)


@templates.command("rollback")
@click.argument("slug")
@click.argument("version", type=click.IntRange(min=1))
@click.pass_obj
def templates_rollback(settings: Settings, slug: str, version: int) -> None:
    """Publish an earlier VERSION of the template again."""
    with settings.client() as client, _service_errors():
        template = client.rollback_template(slug, version)
    err.print(f"{slug}: version {template.version} is published", highlight=False)


@templates.command("diff")
@click.argument("slug")
@click.option("--from", "from_version", help="A version, draft or published (default).")
@click.option("--to", "to_version", help="A version, draft or published (default: the draft).")
@json_option
@click.pass_obj
def templates_diff(
    settings: Settings, slug: str, from_version: str | None, to_version: str | None, as_json: bool
) -> None:
    """Compare two versions: changed pixels per page and the source diff."""
    with settings.client() as client, _service_errors():
        diff = client.diff_template(slug, from_version=from_version, to_version=to_version)
    if as_json:
        _print_json(diff)
        return
    err.print(f"v{diff['from_version']} -> v{diff['to_version']}", highlight=False)
    for page in diff["pages"]:
        mark = "changed" if page["changed_pixels"] else "same"
        click.echo(
            f"page {page['page']}: {mark} ({page['changed_pixels']} px) {page['overlay_png_url']}"
        )
    click.echo(diff["source_diff"], nl=False)


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


@cli.group()
def schedules() -> None:
    """List, create, pause, resume and run schedules."""


@schedules.command("list")
@json_option
@click.pass_obj
def schedules_list(settings: Settings, as_json: bool) -> None:
    """The workspace's schedules and when each runs next."""
    with settings.client() as client, _service_errors():
        found = client.list_schedules()
    if as_json:
        _print_json(found)
        return
    # Whole ids, never shortened by a narrow terminal: they are what the other commands
    # take (a unique prefix of one works too).
    whole_id = Column("id", no_wrap=True, min_width=36)
    table = Table(whole_id, "name", "template", "cron", "timezone", "next run (UTC)", "state")
    for s in found:
        table.add_row(
            s["schedule_id"],
            s["name"],
            s["template"],
            s["cron"],
            s["timezone"],
            s["next_run_at"] or "-",
            "paused" if s["paused"] else "active",
        )
    Console().print(table)


@schedules.command("create")
@click.argument("template")
@click.argument("cron")
@click.option("--timezone", "zone", default="UTC", show_default=True, help="An IANA zone.")
@click.option("--name", help="What to call it (by default the template's name).")
@click.option("--data", "data_path", metavar="FILE", help="JSON object of data ('-': stdin).")
@click.option("--data-url", help="An https URL each run fetches its data from.")
@click.option("--email", "emails", multiple=True, metavar="ADDRESS", help="Mail the PDF here.")
@click.option("--webhook", help="POST a signed webhook here when a run's PDF is ready.")
@click.option("--s3", "s3_target", metavar="BUCKET[/PREFIX]", help="Put the PDF into S3.")
@click.option("--paused", is_flag=True, help="Create it paused.")
@json_option
@click.pass_obj
def schedules_create(
    settings: Settings,
    template: str,
    cron: str,
    zone: str,
    name: str | None,
    data_path: str | None,
    data_url: str | None,
    emails: tuple[str, ...],
    webhook: str | None,
    s3_target: str | None,
    paused: bool,
    as_json: bool,
) -> None:
    """Render TEMPLATE on CRON (five fields, quoted: "0 6 1 * *") and deliver it. Prints
    the schedule's id."""
    deliveries: list[dict[str, Any]] = []
    if emails:
        deliveries.append({"type": "email", "to": list(emails)})
    if webhook:
        deliveries.append({"type": "webhook", "url": webhook})
    if s3_target:
        bucket, _, prefix = s3_target.partition("/")
        deliveries.append({"type": "s3", "bucket": bucket, "prefix": prefix})
    data = _read_json_object(data_path, "--data") if data_path else None
    with settings.client() as client, _service_errors():
        created = client.create_schedule(
            template=template,
            cron=cron,
            timezone=zone,
            name=name,
            data=data,
            data_url=data_url,
            deliveries=deliveries,
            paused=paused or None,
        )
    err.print(f"Next run: {created['next_run_at'] or 'paused'} (UTC)", highlight=False)
    if as_json:
        _print_json(created)
    else:
        click.echo(created["schedule_id"])


def _set_paused(settings: Settings, schedule_id: str, paused: bool) -> None:
    with settings.client() as client, _service_errors():
        schedule_id = client.find_schedule_id(schedule_id)
        changed = client.update_schedule(schedule_id, paused=paused)
    state = "paused" if changed["paused"] else f"active, next run {changed['next_run_at']} (UTC)"
    err.print(f"Schedule {schedule_id}: {state}", highlight=False)


@schedules.command("pause")
@click.argument("schedule_id")
@click.pass_obj
def schedules_pause(settings: Settings, schedule_id: str) -> None:
    """Stop its ticks (run-now still works). SCHEDULE_ID: whole, or a unique prefix."""
    _set_paused(settings, schedule_id, True)


@schedules.command("resume")
@click.argument("schedule_id")
@click.pass_obj
def schedules_resume(settings: Settings, schedule_id: str) -> None:
    """Tick again, counting from now (missed ticks do not run). SCHEDULE_ID: whole, or a
    unique prefix."""
    _set_paused(settings, schedule_id, False)


@schedules.command("run-now")
@click.argument("schedule_id")
@json_option
@click.pass_obj
def schedules_run_now(settings: Settings, schedule_id: str, as_json: bool) -> None:
    """Run it once now; prints the run's id (see `schedules runs`)."""
    with settings.client() as client, _service_errors():
        run = client.run_schedule(client.find_schedule_id(schedule_id))
    if as_json:
        _print_json(run)
    else:
        click.echo(run["run_id"])


@schedules.command("runs")
@click.argument("schedule_id")
@json_option
@click.pass_obj
def schedules_runs(settings: Settings, schedule_id: str, as_json: bool) -> None:
    """Its past runs, newest first, with their outcomes."""
    with settings.client() as client, _service_errors():
        runs = client.schedule_runs(client.find_schedule_id(schedule_id))
    if as_json:
        _print_json(runs)
        return
    table = Table("run", "trigger", "started", "outcome", "job", "error")
    for r in runs:
        table.add_row(
            r["run_id"], r["trigger"], r["started_at"], r["outcome"], r["job_id"] or "-", r["error"]
        )
    Console().print(table)


def main(argv: list[str] | None = None) -> None:
    cli(args=argv, prog_name="pdfreports")
