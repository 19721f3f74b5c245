"""Finding the runnable examples in Markdown: a fenced block right after a line
`<!-- example -->` (docs/development/examples.md describes the marker and its options)."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

MARKER = re.compile(r"^\s*<!--\s*example\b(?P<options>.*?)-->\s*$")
FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,})\s*(?P<lang>[\w+-]*)")
# How each fence language runs; anything else marked runnable is an error, not a skip.
RUNNERS = {"sh": "bash", "bash": "bash", "shell": "bash", "python": "python", "py": "python"}
OPTIONS = {"creates", "stdout", "timeout"}
# Folders that hold no documentation of ours.
SKIPPED_DIRS = {"node_modules", "var", "site", "build", "dist"}


class ExampleError(ValueError):
    """A marker that does not mark a runnable block, said with its file and line."""


@dataclass(frozen=True)
class Example:
    path: Path
    line: int  # of the opening fence, 1-based
    runner: str  # "bash" or "python"
    code: str
    creates: tuple[str, ...] = ()  # files the example must leave behind
    stdout: tuple[str, ...] = ()  # texts its standard output must contain
    timeout: float = 180.0

    def label(self, root: Path) -> str:
        return f"{self.path.relative_to(root)}:{self.line}"


def _options(text: str, where: str) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for word in shlex.split(text.strip().lstrip(":")):
        name, sep, value = word.partition("=")
        if not sep or name not in OPTIONS:
            raise ExampleError(f"{where}: unknown example option {word!r} (known: {OPTIONS})")
        found.setdefault(name, []).append(value)
    return found


def _closes(line: str, fence: str) -> bool:
    stripped = line.strip()
    return stripped.startswith(fence) and stripped.strip(fence[0]) == ""


def examples_in(path: Path) -> list[Example]:
    """The marked blocks of one Markdown file, in order. A marker inside a fenced block
    (a page showing how to mark one) is text, not a marker."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found = []
    open_fence = ""
    for number, text in enumerate(lines):
        if open_fence:
            if _closes(text, open_fence):
                open_fence = ""
            continue
        if (fence := FENCE.match(text)) is not None:
            open_fence = fence.group("fence")
            continue
        marker = MARKER.match(text)
        if marker is None:
            continue
        where = f"{path}:{number + 1}"
        options = _options(marker.group("options"), where)
        fence = FENCE.match(lines[number + 1]) if number + 1 < len(lines) else None
        if fence is None:
            raise ExampleError(f"{where}: `<!-- example -->` must be followed by a ``` fence")
        runner = RUNNERS.get(fence.group("lang").lower())
        if runner is None:
            language = fence.group("lang") or "an unnamed language"
            raise ExampleError(f"{where}: a runnable example is sh, bash or python, not {language}")
        indent, closing = fence.group("indent"), fence.group("fence")
        body = []
        for inner in lines[number + 2 :]:
            if _closes(inner, closing):
                break
            body.append(inner[len(indent) :] if inner.startswith(indent) else inner)
        else:
            raise ExampleError(f"{where}: the example's fence is never closed")
        found.append(
            Example(
                path=path,
                line=number + 2,
                runner=runner,
                code="\n".join(body) + "\n",
                creates=tuple(options.get("creates", [])),
                stdout=tuple(options.get("stdout", [])),
                timeout=float(options.get("timeout", ["180"])[-1]),
            )
        )
    return found


def markdown_files(root: Path) -> list[Path]:
    """Every .md file under root, outside the folders that hold no docs of ours."""
    return sorted(
        path
        for path in root.rglob("*.md")
        if not SKIPPED_DIRS.intersection(path.relative_to(root).parts[:-1])
        and not any(part.startswith(".") for part in path.relative_to(root).parts[:-1])
    )


def all_examples(root: Path) -> list[Example]:
    return [example for path in markdown_files(root) for example in examples_in(path)]
