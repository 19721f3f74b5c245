"""create_workspace and create_api_key --workspace --role, run as a person would run them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from accounts.services import api_key_resolve
from tests.factories import UserFactory
from workspaces.models import Membership, Workspace

pytestmark = pytest.mark.process


ROOT = Path(__file__).resolve().parents[2]


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    call_command(*args)
    return capsys.readouterr().out.strip()


@pytest.mark.django_db
def test_create_workspace_makes_its_owner_a_member(capsys: pytest.CaptureFixture[str]) -> None:
    UserFactory(username="fiona")
    slug = _run(capsys, "create_workspace", "Finance Team", "--owner", "fiona")
    assert slug == "finance-team"
    workspace = Workspace.objects.get(slug=slug)
    assert (workspace.name, workspace.personal) == ("Finance Team", False)
    assert Membership.objects.get(workspace=workspace).role == "owner"


@pytest.mark.django_db
def test_create_api_key_for_a_workspace_in_a_role(capsys: pytest.CaptureFixture[str]) -> None:
    UserFactory(username="fiona")
    _run(capsys, "create_workspace", "Finance", "--owner", "fiona")
    raw = _run(capsys, "create_api_key", "fiona", "--workspace", "Finance", "--role", "requester")
    key = api_key_resolve(raw)
    assert key is not None
    assert (key.workspace.slug, key.role, key.user.username) == ("finance", "requester", "fiona")


@pytest.mark.django_db
def test_create_api_key_without_workspace_is_the_users_own(
    capsys: pytest.CaptureFixture[str],
) -> None:
    key = api_key_resolve(_run(capsys, "create_api_key", "newcomer"))
    assert key is not None
    assert key.workspace.personal
    assert key.role == "editor"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["create_workspace", "Ops", "--owner", "ghost"], "No user 'ghost'"),
        (["create_workspace", "!!!", "--owner", "fiona"], "needs a letter or digit"),
        (["create_workspace", "Taken", "--owner", "fiona"], "exists already"),
        (["create_api_key", "fiona", "--workspace", "nowhere"], "No workspace named 'nowhere'"),
        (["create_api_key", "ghost", "--workspace", "taken"], "No user 'ghost'"),
        (["create_api_key", "fiona", "--workspace", "taken", "--role", "boss"], "Unknown role"),
        (["create_api_key", "viv", "--workspace", "taken"], "needs the owner role"),
    ],
)
def test_bad_input_is_one_clear_error(args: list[str], message: str) -> None:
    fiona = UserFactory(username="fiona")
    UserFactory(username="viv")
    call_command("create_workspace", "Taken", "--owner", fiona.username)
    with pytest.raises(CommandError, match=message):
        call_command(*args)


@pytest.mark.django_db(transaction=True)
def test_bad_input_exits_1_with_one_line() -> None:
    """Through manage.py itself: exit code 1 and a single line on stderr, no traceback."""
    result = subprocess.run(
        [
            sys.executable,
            "manage.py",
            "create_api_key",
            "nobody",
            "--workspace",
            "x",
            "--role",
            "z",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.test"},
        timeout=60,
        check=False,
    )
    assert result.returncode == 1
    assert result.stdout == ""
    lines = [line for line in result.stderr.splitlines() if "CommandError" in line]
    assert lines == [
        "CommandError: Unknown role 'z'; use one of: owner, editor, requester, viewer, operator."
    ]
