"""The error-code registries (rendering's, the API's and each app's own) are the one list:
the code emits only their members, DRF's own errors map onto them, no two define the same
code, core.error_registry looks up every one of them, and docs/reference/errors.md
documents exactly their codes."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from rest_framework import exceptions

from accounts import error_codes as account_codes
from core import error_codes as api_codes
from core.error_codes import ApiErrorCode
from core.error_registry import code_info, error_code, permanent_codes, registries, retry_helps
from core.exception_handler import drf_error_code
from dropins import error_codes as dropin_codes
from jobs import error_codes as job_codes
from jobs.error_codes import JobErrorCode
from rendering import error_codes
from rendering.error_codes import ErrorCode
from reports import error_codes as report_codes
from runs import error_codes as run_codes
from schedules import error_codes as schedule_codes
from workspaces import error_codes as workspace_codes

ROOT = Path(__file__).resolve().parents[2]
APP_PACKAGES = (
    "accounts",
    "core",
    "dropins",
    "jobs",
    "reports",
    "rendering",
    "runs",
    "schedules",
    "workspaces",
    "config",
)
# Each registry: its enum, whose members carry their CodeInfo.
REGISTRIES = [
    error_codes.ErrorCode,
    api_codes.ApiErrorCode,
    account_codes.AccountErrorCode,
    report_codes.TemplateErrorCode,
    job_codes.JobErrorCode,
    dropin_codes.DropinErrorCode,
    workspace_codes.WorkspaceErrorCode,
    schedule_codes.ScheduleErrorCode,
    run_codes.RunErrorCode,
]
ALL_CODES = {str(code): code.info for codes in REGISTRIES for code in codes}
DOC = ROOT / "docs" / "reference" / "errors.md"


def _literal_codes(tree: ast.AST) -> list[tuple[int, str]]:
    """String literals given as an error code: `code="x"`, `code = "x"`, `{"code": "x"}`."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        values: list[ast.expr] = []
        if isinstance(node, ast.keyword) and node.arg in ("code", "error_code"):
            values = [node.value]
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == "code" for t in targets) and node.value:
                values = [node.value]
        elif isinstance(node, ast.Dict):
            values = [
                v
                for k, v in zip(node.keys, node.values, strict=True)
                if isinstance(k, ast.Constant) and k.value in ("code", "error_code")
            ]
        found += [
            (v.lineno, v.value)
            for v in values
            if isinstance(v, ast.Constant) and isinstance(v.value, str) and v.value
        ]
    return found


def test_no_error_code_is_written_as_a_string_literal():
    literals = [
        f"{path.relative_to(ROOT)}:{line}: {code!r}"
        for package in APP_PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
        if "migrations" not in path.parts
        for line, code in _literal_codes(ast.parse(path.read_text(), str(path)))
    ]
    assert literals == [], "use ErrorCode members: " + "; ".join(literals)


def test_the_literal_scan_finds_a_literal_code():
    # The scan above must be able to fail.
    source = 'raise E("x", code="oops")\nclass A:\n    code = "b"\nd = {"code": "c"}\n'
    assert sorted(code for _, code in _literal_codes(ast.parse(source))) == ["b", "c", "oops"]


@pytest.mark.parametrize("codes", REGISTRIES)
def test_every_code_says_its_status_retry_and_advice(codes):
    for code in codes:
        assert code.value == str(code)
        assert code.info.status is None or 400 <= code.info.status < 600
        assert isinstance(code.info.retry_helps, bool)
        assert code.info.advice


def test_no_two_registries_define_the_same_code():
    assert len(ALL_CODES) == sum(len(codes) for codes in REGISTRIES)


def test_every_error_codes_module_is_a_registry_here():
    modules = sorted(str(p.relative_to(ROOT)) for p in ROOT.glob("*/error_codes.py"))
    listed = sorted(f"{codes.__module__.replace('.', '/')}.py" for codes in REGISTRIES)
    assert modules == listed


def test_the_lookup_finds_every_registry():
    # Apps' modules are found like admin modules: jobs, below the apps, reads their codes.
    found = registries()
    assert len(found) == len(REGISTRIES)
    assert set(found) == set(REGISTRIES)
    for code, info in ALL_CODES.items():
        assert code_info(code) == info
        assert error_code(code) == code
    assert code_info("something_old") is None
    assert error_code("something_old") is None


def test_permanent_codes_are_those_a_retry_cannot_fix():
    expected = sorted(code for code, info in ALL_CODES.items() if not info.retry_helps)
    assert sorted(permanent_codes()) == expected


@pytest.mark.parametrize(
    "exc_class",
    [
        cls
        for cls in vars(exceptions).values()
        if isinstance(cls, type)
        and issubclass(cls, exceptions.APIException)
        and cls not in (exceptions.APIException, exceptions.ValidationError)
    ],
)
def test_drf_errors_map_to_registry_codes(exc_class):
    exc = exc_class(wait=1) if exc_class is exceptions.Throttled else exc_class(*_args(exc_class))
    code = drf_error_code(exc)
    assert code in ALL_CODES
    assert code != ApiErrorCode.SERVER_ERROR  # each 4xx DRF error has its own code


def _args(exc_class: type) -> tuple[str, ...]:
    # MethodNotAllowed and UnsupportedMediaType need the method / media type.
    needs = {exceptions.MethodNotAllowed: ("PUT",), exceptions.UnsupportedMediaType: ("text/x",)}
    return needs.get(exc_class, ())


def test_a_body_that_is_not_json_is_invalid_data():
    assert drf_error_code(exceptions.ParseError()) == ErrorCode.INVALID_DATA


def _documented() -> dict[str, str]:
    """code -> status column of the doc's tables (rows that start with a `code`)."""
    rows = re.findall(r"^\| `([a-z_]+)` \| ([^|]+) \|", DOC.read_text(), flags=re.MULTILINE)
    return {code: status.strip() for code, status in rows}


def test_the_errors_page_documents_exactly_the_registry():
    documented = _documented()
    assert sorted(documented) == sorted(ALL_CODES)


def test_the_errors_page_gives_each_code_its_status():
    for code, info in ALL_CODES.items():
        expected = str(info.status) if info.status else "job only"
        assert _documented()[code] == expected, code


def test_retry_helps_only_where_the_same_job_can_succeed():
    assert retry_helps(JobErrorCode.WORKER_LOST)
    assert retry_helps(ErrorCode.TIMEOUT)
    assert not retry_helps(ErrorCode.TEMPLATE_SYNTAX)
    assert not retry_helps(ErrorCode.INVALID_DATA)
    assert retry_helps("something_old")  # a row stored before the registry
