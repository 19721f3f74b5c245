"""MkDocs hook: the API reference page, generated at build time from the OpenAPI schema.

drf-spectacular builds the schema in-process from the views (the same call the contract
tests make), so the page cannot drift from the code: it is never written by hand. The
schema becomes Markdown tables (endpoints, parameters, request bodies, responses, and every
component's fields), which MkDocs checks like any page (`--strict`: no broken anchors).
Building needs no database, broker or network: only Django's settings and URLconf.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

PAGE = "reference/api.md"
METHODS = ("get", "post", "put", "patch", "delete")


def openapi_schema(repo_root: Path) -> dict[str, Any]:
    """The service's OpenAPI schema, generated in this process."""
    if str(repo_root) not in sys.path:
        sys.path.insert(0, str(repo_root))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
    import django
    from django.apps import apps

    if not apps.ready:
        django.setup()
    from drf_spectacular.drainage import GENERATOR_STATS
    from drf_spectacular.generators import SchemaGenerator

    # The generator's warnings (an authenticator it has no extension for) are the contract
    # tests' business; a docs build is not the place to repeat them.
    with GENERATOR_STATS.silence():
        schema: dict[str, Any] = SchemaGenerator().get_schema(request=None, public=True)
    return schema


def _cell(text: Any) -> str:
    """Table-safe text: one line, pipes escaped, without drf-spectacular's list of enum
    values (`* `queued` - queued`), which the type column already shows."""
    lines = [line for line in str(text or "").splitlines() if not line.startswith("* `")]
    return " ".join(" ".join(lines).split()).replace("|", "\\|")


def _type(schema: dict[str, Any]) -> str:
    """A schema's type in words, with components linked to their section."""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return f"[{name}](#{name.lower()})"
    for combiner in ("oneOf", "anyOf", "allOf"):
        if combiner in schema:
            joined = " or " if combiner != "allOf" else " and "
            kinds = [_type(part) for part in schema[combiner]]
            return joined.join(dict.fromkeys(kinds))  # once each, in order
    if schema.get("maxLength") == 0:
        return 'empty string `""`'
    kind = schema.get("type", "any")
    if isinstance(kind, list):
        kind = " or ".join(str(part) for part in kind)
    if kind == "array":
        kind = f"array of {_type(schema.get('items', {}))}"
    if schema.get("format"):
        kind = f"{kind} ({schema['format']})"
    if schema.get("pattern"):
        kind = f"{kind} matching `{schema['pattern']}`"
    if "maxLength" in schema:
        kind = f"{kind}, at most {schema['maxLength']} characters"
    if "enum" in schema:
        shown = [f"`{value}`" if value != "" else '`""`' for value in schema["enum"]]
        kind = f"{kind}: " + ", ".join(value for value in shown if value != "`None`")
    if schema.get("nullable"):
        kind = f"{kind}, nullable"
    return str(kind)


def _operation(path: str, method: str, operation: dict[str, Any]) -> list[str]:
    lines = [f"### {method.upper()} `{path}`", ""]
    for key in ("summary", "description"):
        if operation.get(key):
            lines += [operation[key].strip(), ""]
    parameters = operation.get("parameters", [])
    if parameters:
        lines += [
            "| parameter | in | type | required | meaning |",
            "| --- | --- | --- | --- | --- |",
        ]
        for parameter in parameters:
            lines.append(
                f"| `{parameter['name']}` | {parameter['in']} | "
                f"{_cell(_type(parameter.get('schema', {})))} | "
                f"{'yes' if parameter.get('required') else 'no'} | "
                f"{_cell(parameter.get('description'))} |"
            )
        lines.append("")
    body = operation.get("requestBody", {}).get("content", {})
    if body:
        lines += ["| request body | schema |", "| --- | --- |"]
        for content_type, media in body.items():
            lines.append(f"| `{content_type}` | {_cell(_type(media.get('schema', {})))} |")
        lines.append("")
    lines += ["| response | content | schema | meaning |", "| --- | --- | --- | --- |"]
    for status, response in operation.get("responses", {}).items():
        contents = response.get("content") or {"": {}}
        for content_type, media in contents.items():
            shown = f"`{content_type}`" if content_type else ""
            lines.append(
                f"| {status} | {shown} | {_cell(_type(media.get('schema', {})) if media else '')} "
                f"| {_cell(response.get('description'))} |"
            )
    lines.append("")
    return lines


def _component(name: str, schema: dict[str, Any]) -> list[str]:
    lines = [f"### {name}", ""]
    if schema.get("description"):
        lines += [schema["description"].strip(), ""]
    properties = schema.get("properties", {})
    if not properties:
        lines += [f"{_cell(_type(schema))}", ""]
        return lines
    required = set(schema.get("required", []))
    lines += ["| field | type | required | meaning |", "| --- | --- | --- | --- |"]
    for field, spec in properties.items():
        flags = "yes" if field in required else "no"
        if spec.get("readOnly"):
            flags += " (read only)"
        lines.append(
            f"| `{field}` | {_cell(_type(spec))} | {flags} | {_cell(spec.get('description'))} |"
        )
    lines.append("")
    return lines


def schema_markdown(schema: dict[str, Any]) -> str:
    """The reference page: an index of endpoints, each operation, then the components."""
    info = schema.get("info", {})
    lines = [
        "# API reference",
        "",
        "<!-- Generated at build time from the OpenAPI schema by docs/hooks/openapi.py. -->",
        "",
        f"{info.get('title', '')} {info.get('version', '')}: {info.get('description', '')}",
        "",
        "Generated from the views by drf-spectacular each time the site is built; the "
        "running service serves the same schema at `/api/v1/schema` and browses it at "
        "`/api/v1/docs`. The [API guide](../guides/api.md) explains each endpoint in words.",
        "",
        "## Endpoints",
        "",
        "| method | path | operation |",
        "| --- | --- | --- |",
    ]
    operations: list[tuple[str, str, dict[str, Any]]] = []
    for path, item in schema.get("paths", {}).items():
        for method in METHODS:
            if method in item:
                operations.append((path, method, item[method]))
    for path, method, operation in operations:
        lines.append(f"| {method.upper()} | `{path}` | {_cell(operation.get('operationId'))} |")
    lines += ["", "## Operations", ""]
    for path, method, operation in operations:
        lines += _operation(path, method, operation)
    lines += ["## Schemas", ""]
    for name, component in schema.get("components", {}).get("schemas", {}).items():
        lines += _component(name, component)
    return "\n".join(lines) + "\n"


def on_files(files: Files, config: MkDocsConfig) -> Files:
    repo_root = Path(config.config_file_path).resolve().parent
    content = schema_markdown(openapi_schema(repo_root))
    files.append(File.generated(config, PAGE, content=content))
    return files
