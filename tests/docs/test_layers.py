"""docs/architecture/layers.md says what the import-linter contracts in pyproject.toml
enforce: the package table in the contract's order, and each layer inside jobs/ and
jobs/worker/ with exactly the contract's modules. An edit of either side alone fails here."""

from __future__ import annotations

import re
import tomllib

from tests.docs.settings_code import ROOT

PAGE = (ROOT / "docs" / "architecture" / "layers.md").read_text()
CONTRACTS = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]


def _contract(name_start: str) -> dict:
    return next(c for c in CONTRACTS["contracts"] if c["name"].startswith(name_start))


def _layers(contract: dict) -> list[set[str]]:
    return [{module.strip() for module in layer.split("|")} for layer in contract["layers"]]


def _names(text: str) -> set[str]:
    return {name.rstrip("/") for name in re.findall(r"`([^`]+)`", text)}


def test_the_package_table_is_the_top_contract_in_its_order():
    rows = re.findall(r"^\| (\d+) \| `([a-z_]+)/` \|", PAGE, flags=re.MULTILINE)
    numbers = sorted({int(number) for number, _ in rows}, reverse=True)
    by_layer = [{package for number, package in rows if int(number) == n} for n in numbers]
    assert by_layer == _layers(_contract("Apps point one way"))
    assert numbers == list(range(len(numbers), 0, -1))
    assert {package for _, package in rows} == set(CONTRACTS["root_packages"])


def test_the_jobs_list_is_the_jobs_contract_layer_by_layer():
    section = PAGE.split("## Inside `jobs/`, top to bottom", 1)[1]
    lines = re.findall(r"^\d+\. (.+?):", section, flags=re.MULTILINE)
    assert [_names(line) for line in lines] == _layers(_contract("jobs/ in layers"))


def test_the_worker_line_is_the_worker_contract_layer_by_layer():
    line = re.search(r"Inside `jobs/worker/`: (.+?)\.\n", PAGE, flags=re.DOTALL)
    assert line is not None
    layers = [_names(part) for part in re.split(r",\s+then\s+", line.group(1))]
    assert layers == _layers(_contract("jobs/worker/ in layers"))
