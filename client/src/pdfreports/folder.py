"""Templates as code: a template kept as a folder of files, so it lives in git and is
reviewed in pull requests. `pdfreports templates pull` writes one, `push` sends it (a
draft, or published with --publish) and `watch` pushes it on every save.

    invoice/
      template.toml   slug, name, engine, renderer, renderers, cache_results, [options]
      template.html   the template source (Handlebars, Jinja2 or raw HTML)
      style.css       extra CSS (optional)
      helpers.js      Handlebars helpers (optional)
      schema.json     the JSON Schema of its data (optional)
      sample.json     sample data: previews, the studio, the diff (optional)

A file left out is empty: the folder is the whole template, so deleting style.css
clears the template's CSS on the next push."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import tomli_w

MANIFEST = "template.toml"
TEXT_FILES = {"html": "template.html", "css": "style.css", "helpers": "helpers.js"}
JSON_FILES = {"schema": "schema.json", "sample_data": "sample.json"}
MANIFEST_FIELDS = ("name", "engine", "renderer", "renderers", "cache_results", "options")
WATCHED = (MANIFEST, *TEXT_FILES.values(), *JSON_FILES.values())


class FolderError(ValueError):
    """The folder is not a template folder (a file missing, unreadable or invalid)."""


def folder_write(directory: Path, template: dict[str, Any]) -> list[Path]:
    """Write a template's JSON (as the API answers it, or its draft merged in) as a folder;
    returns the files written. Empty optional files are not written."""
    directory.mkdir(parents=True, exist_ok=True)
    manifest: dict[str, Any] = {"slug": template["slug"]}
    for name in MANIFEST_FIELDS:
        value = template.get(name)
        if value not in (None, "", [], {}):
            manifest[name] = value
    written = [directory / MANIFEST]
    (directory / MANIFEST).write_text(tomli_w.dumps(manifest), encoding="utf-8")
    for field, filename in TEXT_FILES.items():
        text = template.get(field) or ""
        path = directory / filename
        if text or field == "html":
            path.write_text(text, encoding="utf-8")
            written.append(path)
        elif path.exists():
            path.unlink()
    for field, filename in JSON_FILES.items():
        value = template.get(field) or {}
        path = directory / filename
        if value:
            path.write_text(json.dumps(value, indent=2, ensure_ascii=False) + "\n", "utf-8")
            written.append(path)
        elif path.exists():
            path.unlink()
    return written


def folder_read(directory: Path) -> tuple[str, dict[str, Any]]:
    """(slug, the template's fields) from a folder; FolderError naming the file at fault."""
    manifest_path = directory / MANIFEST
    if not manifest_path.is_file():
        raise FolderError(f"{directory} has no {MANIFEST}; `pdfreports templates pull` makes one")
    try:
        manifest = tomllib.loads(manifest_path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise FolderError(f"{manifest_path}: {exc}") from exc
    slug = str(manifest.get("slug") or directory.resolve().name)
    unknown = sorted(set(manifest) - {"slug", *MANIFEST_FIELDS})
    if unknown:
        raise FolderError(f"{manifest_path}: unknown keys {', '.join(unknown)}")
    fields: dict[str, Any] = {name: manifest[name] for name in MANIFEST_FIELDS if name in manifest}
    if not (directory / TEXT_FILES["html"]).is_file():
        raise FolderError(f"{directory} has no {TEXT_FILES['html']}")
    for field, filename in TEXT_FILES.items():
        path = directory / filename
        fields[field] = path.read_text(encoding="utf-8") if path.is_file() else ""
    for field, filename in JSON_FILES.items():
        path = directory / filename
        if not path.is_file():
            fields[field] = {}
            continue
        try:
            value = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise FolderError(f"{path}: line {exc.lineno}: {exc.msg}") from exc
        if not isinstance(value, dict):
            raise FolderError(f"{path} must hold a JSON object")
        fields[field] = value
    fields.setdefault("options", {})
    return slug, fields


def template_with_draft(template: dict[str, Any]) -> dict[str, Any]:
    """The template's JSON with its draft's source in place of the published one."""
    draft = template.get("draft") or {}
    merged = dict(template)
    for name in (
        "engine",
        "renderer",
        "html",
        "css",
        "helpers",
        "schema",
        "sample_data",
        "options",
    ):
        if name in draft:
            merged[name] = draft[name]
    return merged
