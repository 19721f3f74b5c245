"""Every environment variable the service reads, with its default, found in the code itself
(the settings helpers of config/env.py, os.environ, and the Procfile's ${NAME:-default}),
so the settings reference can be checked against it (tests/docs/test_drift.py)."""

from __future__ import annotations

import ast
import operator
import re
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("config", "core", "jobs", "reports", "accounts", "rendering")
ENV_HELPERS = {
    "env_str",
    "env_int",
    "env_bool",
    "env_float",
    "env_list",
    "env_choice",
    "env_required",
    "env_admins",
}
UNKNOWN = object()  # a default the code computes (a path, another setting): not compared
REQUIRED = object()  # env_required: no default, start-up stops without it
_OPS = {ast.Mult: operator.mul, ast.Add: operator.add, ast.Sub: operator.sub}


@dataclass
class EnvRead:
    name: str
    defaults: list[object] = field(default_factory=list)  # one per place that reads it
    where: list[str] = field(default_factory=list)


def _value(node: ast.expr | None) -> object:
    """A default the code spells as a constant (64 * 1024, a list of strings), else UNKNOWN."""
    if node is None:
        return None
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        left, right = _value(node.left), _value(node.right)
        if isinstance(left, int | float) and isinstance(right, int | float):
            return _OPS[type(node.op)](left, right)
    if isinstance(node, ast.List | ast.Tuple):
        items = [_value(item) for item in node.elts]
        return UNKNOWN if UNKNOWN in items else items
    return UNKNOWN


def _constants(tree: ast.Module) -> dict[str, str]:
    """Module-level NAME = "..." strings, for os.environ.get(VARIABLE)."""
    found: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
            for target in node.targets:
                if isinstance(target, ast.Name) and isinstance(node.value.value, str):
                    found[target.id] = node.value.value
    return found


def _name(node: ast.expr, constants: dict[str, str]) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name):
        return constants.get(node.id)
    return None


def _is_environ(node: ast.expr) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "environ"


def _reads_in(path: Path) -> list[tuple[str, object]]:
    tree = ast.parse(path.read_text(), filename=str(path))
    constants = _constants(tree)
    reads: list[tuple[str, object]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.args:
            func = node.func
            callee = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            name = _name(node.args[0], constants)
            if name is None:
                continue
            default = node.args[1] if len(node.args) > 1 else None
            if callee == "env_required" and isinstance(func, ast.Name):
                reads.append((name, REQUIRED))
            elif callee in ENV_HELPERS and isinstance(func, ast.Name):
                reads.append((name, _value(default)))
            elif callee in {"get", "setdefault"} and _is_environ(getattr(func, "value", None)):
                reads.append((name, _value(default)))
            elif callee == "getenv":
                reads.append((name, _value(default)))
        elif isinstance(node, ast.Subscript) and _is_environ(node.value):
            name = _name(node.slice, constants)
            if name is not None and isinstance(node.ctx, ast.Load):
                reads.append((name, UNKNOWN))
    return reads


def environment_reads() -> dict[str, EnvRead]:
    """Every variable read by the service's code or its Procfile, by name."""
    reads: dict[str, EnvRead] = {}

    def add(name: str, default: object, where: str) -> None:
        entry = reads.setdefault(name, EnvRead(name))
        entry.defaults.append(default)
        entry.where.append(where)

    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            for name, default in _reads_in(path):
                add(name, default, str(path.relative_to(ROOT)))
    procfile = (ROOT / "Procfile").read_text()
    for name, default in re.findall(r"\$\{([A-Z][A-Z0-9_]*):-([^}]*)\}", procfile):
        add(name, _procfile_value(default), "Procfile")
    for name in re.findall(r"(?:^|\s)([A-Z][A-Z0-9_]*)=\S", procfile, flags=re.MULTILINE):
        add(name, UNKNOWN, "Procfile")
    return reads


def _procfile_value(text: str) -> object:
    return int(text) if text.isdigit() else text
