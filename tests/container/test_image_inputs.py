"""The image's inputs digest (tests/container/image_inputs.py) changes with what the image
is built from and only with that, so the container test rebuilds only when it must."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.container.image_inputs import context_files, inputs_digest


def _repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    for name, text in {
        "Dockerfile": "FROM scratch\n",
        ".dockerignore": "# comment\ntests\n**/__pycache__\n*.egg-info\nDockerfile\n",
        "app/views.py": "VIEW = 1\n",
        "app/__pycache__/views.cpython-311.pyc": "x",
        "tests/test_app.py": "def test(): pass\n",
        "pkg.egg-info/PKG-INFO": "x",
        "static/site.css": "body{}\n",
    }.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def test_the_context_leaves_out_what_dockerignore_names(tmp_path):
    root = _repo(tmp_path)
    assert context_files(root) == [".dockerignore", "app/views.py", "static/site.css"]


def test_the_digest_changes_with_the_images_inputs_only(tmp_path):
    root = _repo(tmp_path)
    first = inputs_digest(root)
    assert inputs_digest(root) == first
    (root / "tests/test_app.py").write_text("def test(): assert 1\n")  # not in the image
    (root / "app/__pycache__/other.pyc").write_text("y")
    assert inputs_digest(root) == first
    (root / "app/views.py").write_text("VIEW = 2\n")
    changed = inputs_digest(root)
    assert changed != first
    (root / "Dockerfile").write_text("FROM scratch\nUSER app\n")  # left out of the context
    assert inputs_digest(root) != changed


def test_this_repositorys_context_holds_the_app_and_not_the_tests():
    root = Path(__file__).resolve().parents[2]
    files = context_files(root)
    assert "manage.py" in files
    assert "config/settings/base.py" in files
    assert not [name for name in files if name.startswith(("tests/", "docs/", ".venv/"))]
