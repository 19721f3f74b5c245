"""What the docs say that the code also says, compared: the settings, the endpoints, the
metrics, the make targets, the README's length and links, and the site's strict build.

Each check reads the code itself (its AST, the URLconf, the OpenAPI schema, the metric
objects, the Makefile), not a copy of it, so an edit on either side without the other fails
here with the name that differs."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from django.urls import URLPattern, URLResolver, get_resolver

from tests.docs.settings_code import REQUIRED, ROOT, UNKNOWN, environment_reads

DOCS = ROOT / "docs"
# Read by other programs, not by the service's code: documented because a deployment sets
# them (boto3 reads the S3 credentials, Flower its login).
READ_ELSEWHERE = {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "FLOWER_BASIC_AUTH"}
EMPTY_WORDS = ("unset", "empty", "none")
METHODS = ("get", "post", "put", "patch", "delete")


def _rows(path: Path, header: str) -> list[list[str]]:
    """The rows of the Markdown table whose header line starts with `header`."""
    lines = path.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in re.split(r"(?<!\\)\|", line.strip())[1:-1]])
    return rows


def _ticked(cell: str) -> list[str]:
    return re.findall(r"`([^`]+)`", cell)


# (a) settings ------------------------------------------------------------------------


def documented_settings() -> dict[str, str]:
    rows = _rows(DOCS / "reference" / "settings.md", "| variable | default | meaning |")
    documented: dict[str, str] = {}
    for variable, default, _meaning in rows:
        names = _ticked(variable)
        assert len(names) == 1, f"one variable a row, please: {variable}"
        assert names[0] not in documented, f"{names[0]} has two rows"
        documented[names[0]] = default
    return documented


def default_spelling(value: object) -> str | None:
    """How a default reads in the table; None for 'no value' (unset, empty, none)."""
    if value is None or value == "" or value == []:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, list):
        return ",".join(str(item) for item in value)
    return str(value)


def test_every_setting_the_code_reads_is_documented_once_with_its_default():
    documented = documented_settings()
    reads = environment_reads()
    missing = sorted(set(reads) - set(documented))
    assert not missing, (
        f"read by the code, not in docs/reference/settings.md: {missing}; add a row "
        "`| `NAME` | default | meaning |` for each"
    )
    read_nowhere = sorted(set(documented) - set(reads) - READ_ELSEWHERE)
    assert not read_nowhere, f"documented, but no code reads them: {read_nowhere}"
    wrong = []
    for name, read in sorted(reads.items()):
        cell = documented[name].replace("`", "")
        for default, where in zip(read.defaults, read.where, strict=True):
            if default is UNKNOWN:
                continue  # computed (a path, another setting): the words are the doc's
            spelled = "required" if default is REQUIRED else default_spelling(default)
            if default is REQUIRED:
                ok = "required" in cell
            elif spelled is None:
                ok = any(word in cell.lower() for word in EMPTY_WORDS)
            else:
                ok = re.search(rf"(?<![\w.]){re.escape(spelled)}(?![\w])", cell) is not None
            if not ok:
                wrong.append(
                    f"{name}: {where} defaults to {spelled or 'nothing'!r}, docs: {cell!r}"
                )
    assert not wrong, "defaults that differ:\n" + "\n".join(wrong)


def test_the_settings_reader_finds_reads_of_each_kind():
    # The comparison above is only as good as this finder: a helper call, os.environ.get
    # with a module constant for its name, a Procfile default.
    reads = environment_reads()
    assert reads["PDF_MAX_TEMPLATE_BYTES"].defaults == [512 * 1024]
    assert None in reads["PROMETHEUS_MULTIPROC_DIR"].defaults
    assert 20 in reads["CALLBACK_CONCURRENCY"].defaults
    assert sorted(reads["DJANGO_DEBUG"].defaults) == [False, False, True]


# (b) endpoints -----------------------------------------------------------------------


def documented_endpoints() -> set[tuple[str, str]]:
    rows = _rows(DOCS / "guides" / "api.md", "| method and path")
    found: set[tuple[str, str]] = set()
    for row in rows:
        for item in _ticked(row[0]):
            if item.startswith("ws/"):
                found.add(("WS", item))
                continue
            method, path = item.split(" ", 1)
            found.add((method, path.split("?", 1)[0]))
    return found


def _routes(patterns: list[URLPattern | URLResolver], prefix: str = "") -> list[str]:
    routes: list[str] = []
    for pattern in patterns:
        route = prefix + str(pattern.pattern)
        if isinstance(pattern, URLResolver):
            routes += _routes(pattern.url_patterns, route)
        else:
            routes.append(route)
    return routes


def _braced(route: str) -> str:
    return re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", route)


def code_endpoints() -> set[tuple[str, str]]:
    """Every operation of the OpenAPI schema, every other /api/v1/ route of the URLconf (the
    SSE streams, the schema views: GET), and every WebSocket route."""
    from drf_spectacular.drainage import GENERATOR_STATS
    from drf_spectacular.generators import SchemaGenerator

    from config.asgi import websocket_urlpatterns

    with GENERATOR_STATS.silence():
        schema = SchemaGenerator().get_schema(request=None, public=True)
    found: set[tuple[str, str]] = set()
    for path, item in schema["paths"].items():
        for method in METHODS:
            if method in item:
                found.add((method.upper(), path.removeprefix("/api/v1/")))
    in_schema = {path for _method, path in found}
    for route in _routes(get_resolver().url_patterns):
        if route.startswith("api/v1/"):
            path = _braced(route.removeprefix("api/v1/"))
            if path not in in_schema:
                found.add(("GET", path))
    for pattern in websocket_urlpatterns:
        found.add(("WS", _braced(str(pattern.pattern))))
    return found


def test_the_endpoint_table_lists_every_endpoint_and_nothing_else():
    documented, code = documented_endpoints(), code_endpoints()
    undocumented, gone = sorted(code - documented), sorted(documented - code)
    assert not undocumented, f"in the code, not in docs/guides/api.md: {undocumented}"
    assert not gone, f"in docs/guides/api.md, not in the code: {gone}"


# (c) metrics and options -----------------------------------------------------------


def registered_metrics() -> set[str]:
    """The instruments of jobs/metrics.py (counters as exposed, with _total) and the gauges
    jobs/ops/scrape.py makes at scrape time."""
    from prometheus_client.metrics import MetricWrapperBase

    import jobs.metrics

    names: set[str] = set()
    for value in vars(jobs.metrics).values():
        if isinstance(value, MetricWrapperBase):
            for metric in value.describe():
                names.add(metric.name + ("_total" if metric.type == "counter" else ""))
    tree = ast.parse((ROOT / "jobs" / "ops" / "scrape.py").read_text())
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and getattr(node.func, "id", "").endswith("MetricFamily")
            and isinstance(node.args[0], ast.Constant)
        ):
            names.add(node.args[0].value)
    return names


def test_the_metrics_table_lists_every_registered_metric_and_nothing_else():
    rows = _rows(DOCS / "reference" / "metrics.md", "| metric | type | labels | what |")
    documented = {name for row in rows for name in _ticked(row[0])}
    registered = registered_metrics()
    assert len(registered) > 15  # the finder found the instruments, not nothing
    assert not registered - documented, f"not documented: {sorted(registered - documented)}"
    assert not documented - registered, f"not registered: {sorted(documented - registered)}"


def test_the_options_table_lists_every_option_with_its_values():
    from rendering import options

    rows = _rows(DOCS / "guides" / "options.md", "| option | meaning |")
    documented = {name for row in rows for name in _ticked(row[0])}
    known = options._KNOWN | set(options._TEXT_OPTIONS)
    assert documented == known, f"docs only: {documented - known}, code only: {known - documented}"
    sizes = next(row[1] for row in rows if "page_size" in row[0])
    for value in (*options.PAGE_SIZES, *options.ORIENTATIONS):
        assert value in sizes, f"{value} is a valid page size or orientation the docs omit"


# (d) make targets --------------------------------------------------------------------


def makefile_targets() -> set[str]:
    text = (ROOT / "Makefile").read_text()
    return set(re.findall(r"^([a-z][a-z0-9-]*):", text, flags=re.MULTILINE))


def test_the_make_targets_table_matches_the_makefile():
    rows = _rows(DOCS / "reference" / "commands.md", "| target | what it does |")
    documented = {item.removeprefix("make ") for row in rows for item in _ticked(row[0])}
    targets = makefile_targets()
    assert {"run", "test", "lint", "docs", "docs-check"} <= targets
    undocumented, gone = sorted(targets - documented), sorted(documented - targets)
    assert not undocumented, f"undocumented make targets: {undocumented}"
    assert not gone, f"documented, not in the Makefile: {gone}"


# (e) README --------------------------------------------------------------------------


def github_anchor(heading: str) -> str:
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def markdown_anchors(path: Path) -> set[str]:
    anchors, fenced = set(), False
    for line in path.read_text().splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and re.match(r"^#{1,6} ", line):
            anchors.add(github_anchor(line.lstrip("#")))
    return anchors


def test_the_readme_is_short_and_its_links_resolve():
    readme = ROOT / "README.md"
    lines = readme.read_text().splitlines()
    assert len(lines) < 200, f"README.md has {len(lines)} lines; move text into docs/"
    links = re.findall(r"\]\(([^)\s]+)\)", readme.read_text())
    local = [link for link in links if not re.match(r"^(https?:|mailto:)", link)]
    assert any(link.startswith("docs/") for link in local)  # it points into the docs
    broken = []
    for link in local:
        target, _, anchor = link.partition("#")
        path = (readme.parent / target) if target else readme
        if not path.exists():
            broken.append(link)
        elif anchor and path.suffix == ".md" and anchor not in markdown_anchors(path):
            broken.append(link)
    assert not broken, f"README links that lead nowhere: {broken}"


# (f) the site --------------------------------------------------------------------------


def test_the_docs_site_builds_strictly(tmp_path):
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    config = load_config(str(ROOT / "mkdocs.yml"), strict=True, site_dir=str(tmp_path))
    build(config)  # raises mkdocs.exceptions.Abort on any warning (a broken link or anchor)
    api = (tmp_path / "reference" / "api.html").read_text()
    assert "/api/v1/generate-pdf-async" in api  # the generated page has the operations
    assert "JobCreateRequest" in api
