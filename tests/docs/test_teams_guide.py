"""The teams guide's audit-log and workspace examples, as a reader runs them: the key its
first line makes is allowed (an owner's), and its `$BASE/...` paths are the API's with
the README's BASE (which ends in /api/v1)."""

from __future__ import annotations

import re
from io import StringIO

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from accounts.services import api_key_create
from tests.processes import BASE_DIR

pytestmark = pytest.mark.django_db
GUIDE = (BASE_DIR / "docs" / "guides" / "teams.md").read_text()
README_BASE = re.search(r"^BASE=(\S+)$", (BASE_DIR / "README.md").read_text(), re.M)


def _paths(section: str) -> list[str]:
    return re.findall(r'"\$BASE(/[^"]*)"', section)


def test_the_guide_uses_the_readmes_base():
    assert README_BASE is not None
    assert README_BASE.group(1).endswith("/api/v1")
    assert "$BASE/api/v1" not in GUIDE
    assert f"BASE={README_BASE.group(1)}" in GUIDE


def test_the_audit_log_example_answers_with_the_key_it_makes(user):
    section = GUIDE.split("## Audit log", 1)[1].split("\n## ", 1)[0]
    make_key = re.search(r"KEY=\$\(\.venv/bin/python manage\.py (.+?)\)", section)
    assert make_key is not None
    args = make_key.group(1).split()
    args[1] = user.username  # the guide's demo user
    out = StringIO()
    call_command(*args, stdout=out)
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=out.getvalue().strip())
    paths = _paths(section)
    assert len(paths) == 2
    for path in paths:
        answer = client.get(f"/api/v1{path}")
        assert answer.status_code == 200, (path, answer.content[:300])
    # The key `make run` prints is an editor's: the guide says it gets a 403.
    editor = APIClient()
    editor.credentials(HTTP_X_API_KEY=api_key_create(user=user, name="demo")[1])
    assert editor.get(f"/api/v1{paths[0]}").status_code == 403


def test_the_workspace_example_makes_one_with_an_owners_key(user):
    section = GUIDE.split("## Making a team workspace", 1)[1].split("\n## ", 1)[0]
    (path,) = _paths(section)
    body = re.search(r"-d '(\{.*?\})'", section)
    assert body is not None
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=api_key_create(user=user, name="o", role="owner")[1])
    answer = client.post(f"/api/v1{path}", body.group(1), content_type="application/json")
    assert answer.status_code == 201, answer.json()
    assert answer.json() == {"name": "Finance", "slug": "finance", "role": "owner"}
