"""Templates as code with the installed `pdfreports` command against the live stack: pull
a template into a folder, push it back as a draft, --publish, and watch (push on save)."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import threading
import time
import tomllib

import pytest

from tests.client import test_cli

PDFREPORTS = test_cli.PDFREPORTS
run = test_cli.run  # the fixture: the console script against the live stack

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]
SCHEMA = {"type": "object", "required": ["who"], "properties": {"who": {"type": "string"}}}


def _json(run, *args: str) -> dict:
    done = run(*args, "--json") if args[-1] != "-" else run(*args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _template(run, slug: str) -> dict:
    return next(t for t in _json(run, "templates", "list") if t["slug"] == slug)


def test_pull_push_publish_round_trip(run, tmp_path):
    folder = tmp_path / "memo"
    folder.mkdir()
    (folder / "template.toml").write_text(
        'slug = "memo"\nname = "Memo"\nengine = "handlebars"\nrenderer = "weasyprint"\n'
        '[options]\nmargin = "20mm"\npage_size = "A5"\n'
    )
    (folder / "template.html").write_text("<h1>Memo for {{who}}</h1>")
    (folder / "style.css").write_text("h1 { color: navy }")
    (folder / "schema.json").write_text(json.dumps(SCHEMA))
    (folder / "sample.json").write_text('{"who": "Ada"}')
    created = run("templates", "push", "memo")
    assert created.returncode == 0, created.stderr
    assert "Created memo, version 1" in created.stderr
    stored = _template(run, "memo")
    assert (stored["renderer"], stored["css"], stored["sample_data"]) == (
        "weasyprint",
        "h1 { color: navy }",
        {"who": "Ada"},
    )
    assert (stored["options"]["margin"], stored["options"]["page_size"]) == ("20mm", "A5")

    pulled = run("templates", "pull", "memo", "copy")
    assert pulled.returncode == 0, pulled.stderr
    copy = tmp_path / "copy"
    assert sorted(p.name for p in copy.iterdir()) == [
        "sample.json",
        "schema.json",
        "style.css",
        "template.html",
        "template.toml",
    ]
    manifest = tomllib.loads((copy / "template.toml").read_text())
    assert (manifest["slug"], manifest["name"], manifest["renderer"]) == (
        "memo",
        "Memo",
        "weasyprint",
    )
    assert json.loads((copy / "schema.json").read_text()) == SCHEMA

    # An edit in the folder is a draft; the published version stays what jobs render.
    (copy / "template.html").write_text("<h1>Memo v2 for {{who}}</h1>")
    (copy / "style.css").unlink()  # a file left out is empty
    drafted = run("templates", "push", "copy")
    assert "Saved draft 2 of memo; version 1 stays published" in drafted.stderr, drafted.stderr
    after = _template(run, "memo")
    assert (after["version"], after["draft_version"], after["html"]) == (
        1,
        2,
        "<h1>Memo for {{who}}</h1>",
    )
    assert after["draft"]["css"] == ""
    draft_copy = run("templates", "pull", "memo", "draft", "--draft")
    assert "version 2" in draft_copy.stderr
    assert (tmp_path / "draft" / "template.html").read_text() == "<h1>Memo v2 for {{who}}</h1>"
    assert not (tmp_path / "draft" / "style.css").exists()
    published = run("templates", "push", "copy", "--publish")
    assert "Published memo, version 2" in published.stderr, published.stderr
    assert _template(run, "memo")["html"] == "<h1>Memo v2 for {{who}}</h1>"

    diff = run("templates", "diff", "memo", "--from", "1", "--to", "2")
    assert diff.returncode == 0, diff.stderr
    assert "-<h1>Memo for {{who}}</h1>" in diff.stdout
    assert "page 1: changed" in diff.stdout
    rolled = run("templates", "rollback", "memo", "1")
    assert "version 1 is published" in rolled.stderr
    # A broken folder is refused with the file and line, exit 2 (bad usage).
    (copy / "sample.json").write_text('{"who": }')
    broken = run("templates", "push", "copy")
    assert broken.returncode == 2
    assert "sample.json: line 1" in broken.stderr


def test_watch_pushes_a_draft_on_save(live_stack, integrator, tmp_path, run):
    folder = tmp_path / "note"
    folder.mkdir()
    (folder / "template.toml").write_text('name = "Note"\n')
    (folder / "template.html").write_text("<p>first {{who}}</p>")
    (folder / "sample.json").write_text('{"who": "Ada"}')
    env = {"PDFREPORTS_URL": live_stack.base_url, "PDFREPORTS_API_KEY": integrator[1]}

    watcher = subprocess.Popen(
        [PDFREPORTS, "templates", "watch", "note", "--preview-out", "note.png"],
        cwd=tmp_path,
        env={**os.environ, **env},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    output: queue.Queue[str] = queue.Queue()
    threading.Thread(
        target=lambda: [output.put(line) for line in watcher.stdout], daemon=True
    ).start()  # type: ignore[union-attr]
    try:
        lines: list[str] = []

        def wait_for(text: str) -> None:
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                try:
                    line = output.get(timeout=0.5)
                except queue.Empty:
                    continue
                lines.append(line)
                if text in line:
                    return
            raise AssertionError(f"no {text!r} in {lines}")

        wait_for("Watching")
        assert any("Created note, version 1" in line for line in lines), lines
        (folder / "template.html").write_text("<p>second {{who}}</p>")
        wait_for("Saved draft 2 of note")
        wait_for("Studio: ")
        wait_for("Preview: note.png")
        assert (tmp_path / "note.png").read_bytes().startswith(b"\x89PNG")
    finally:
        watcher.terminate()
        watcher.wait(timeout=10)
    note = _template(run, "note")
    assert (note["version"], note["draft_version"]) == (1, 2)
    assert note["draft"]["html"] == "<p>second {{who}}</p>"
