"""Every Markdown example marked runnable (`<!-- example -->` before its fence, in any .md
file of the repository) runs as written against a live stack with the built-in samples:
a reader's shell or Python in a fresh folder holding `var/demo-api-key`, the service at
the documented http://127.0.0.1:8000 (rewritten to the live stack's address)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from accounts.services import api_key_create
from reports.samples import template_sync_samples
from tests.conftest import pdf_text
from tests.docs.examples import Example, all_examples
from tests.factories import UserFactory
from tests.processes import BASE_DIR

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]

EXAMPLES = all_examples(BASE_DIR)
DOCUMENTED_ADDRESSES = ("127.0.0.1:8000", "localhost:8000")


def _as_reader(example: Example, base_url: str) -> str:
    """The example's code, pointed at the live stack instead of `make run`'s address."""
    code = example.code
    for address in DOCUMENTED_ADDRESSES:
        code = code.replace(address, base_url.removeprefix("http://"))
    return code


def _check_created(folder: Path, name: str) -> None:
    path = folder / name
    assert path.is_file(), (
        f"the example should have made {name}; the folder has {os.listdir(folder)}"
    )
    content = path.read_bytes()
    if name.endswith(".pdf"):
        pages, _ = pdf_text(content)  # a real PDF that pypdf reads back
        assert pages >= 1
    elif name.endswith(".png"):
        assert content.startswith(b"\x89PNG\r\n\x1a\n")
    elif name.endswith(".json"):
        json.loads(content)
    else:
        assert content


@pytest.fixture
def reader_folder(transactional_db, tmp_path: Path) -> Path:
    """What a reader has after `make run`: the samples, a demo user and its key in var/."""
    template_sync_samples()
    user = UserFactory(username="demo", email="demo@localhost")
    (tmp_path / "var").mkdir()
    (tmp_path / "var" / "demo-api-key").write_text(api_key_create(user=user, name="docs")[1] + "\n")
    return tmp_path


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.label(BASE_DIR) for e in EXAMPLES])
def test_documented_example_runs_as_written(example: Example, live_stack, reader_folder):
    code = _as_reader(example, live_stack.base_url)
    command = (
        ["bash", "-euo", "pipefail", "-c", code]
        if example.runner == "bash"
        else [sys.executable, "-c", code]
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("PDFREPORTS_")}
    # The reader's shell has the service's virtualenv (pdfreports, python) on its PATH.
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    result = subprocess.run(
        command,
        cwd=reader_folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=example.timeout,
        check=False,
    )
    said = f"\n--- stdout\n{result.stdout[-3000:]}\n--- stderr\n{result.stderr[-3000:]}"
    assert result.returncode == 0, f"{example.label(BASE_DIR)} exited {result.returncode}{said}"
    for text in example.stdout:
        assert text in result.stdout, f"{text!r} not in the output{said}"
    for name in example.creates:
        _check_created(reader_folder, name)
