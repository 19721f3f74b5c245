"""What the image is built from, as one digest: the Dockerfile, .dockerignore and every file
of the build context (the working tree less what .dockerignore leaves out). The container
test tags the image with it and builds only when no image has that tag: a run whose inputs
did not change (a test or docs change, a second CI run) skips the build altogether."""

from __future__ import annotations

import fnmatch
import hashlib
import subprocess
from pathlib import Path

ALWAYS = ("Dockerfile", ".dockerignore")


def _ignore_patterns(root: Path) -> list[str]:
    lines = (root / ".dockerignore").read_text(encoding="utf-8").splitlines()
    return [line.strip().rstrip("/") for line in lines if line.strip() and not line.startswith("#")]


def _ignored(path: str, patterns: list[str]) -> bool:
    """.dockerignore's rules as this project uses them: a pattern matches the path or one of
    its folders; `**/` matches at any depth."""
    parts = path.split("/")
    prefixes = ["/".join(parts[: end + 1]) for end in range(len(parts))]
    for pattern in patterns:
        plain = pattern.removeprefix("**/")
        for prefix in prefixes:
            name = prefix.rsplit("/", 1)[-1]
            if fnmatch.fnmatchcase(prefix, pattern) or (
                pattern.startswith("**/") and fnmatch.fnmatchcase(name, plain)
            ):
                return True
    return False


def context_files(root: Path) -> list[str]:
    """The files git knows or would add (tracked, and untracked but not git-ignored) that
    the build context holds, sorted."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=root,
        capture_output=True,
        check=True,
    ).stdout.decode()
    patterns = _ignore_patterns(root)
    names = {name for name in listed.split("\0") if name and (root / name).is_file()}
    return sorted(name for name in names if not _ignored(name, patterns))


def inputs_digest(root: Path) -> str:
    digest = hashlib.sha256()
    for name in sorted({*ALWAYS, *context_files(root)}):
        path = root / name
        digest.update(name.encode() + b"\0")
        digest.update(str(path.stat().st_mode & 0o111).encode() + b"\0")  # executable bits
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()
