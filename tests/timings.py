"""Where the suite's time goes: a JUnit report (`pytest --junitxml`) summed by directory and
by marker, with the slowest tests. Run after a whole-suite run:

    python -m tests.timings var/junit.xml

Each test's time in the report is its setup, call and teardown, so a fixture that starts a
stack is counted in the first test that asks for it. Markers are read by collecting the
suite once per marker (`pytest --collect-only -m <marker>`).
"""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

from tests.markers import TIER_MARKERS


def _test_times(report: Path) -> list[tuple[str, float]]:
    """(node id as the JUnit report names it: dotted module, then the test; seconds), one
    per test case (schemathesis' generated cases share their test's name)."""
    return [
        (f"{case.get('classname')}::{case.get('name')}", float(case.get("time") or 0))
        for case in ET.parse(report).getroot().iter("testcase")  # noqa: S314 - our own report
    ]


def _directory(test: str) -> str:
    parts = test.split("::")[0].split(".")
    while parts and not parts[-1].startswith("test_"):
        parts.pop()  # a class inside the module
    return "/".join(parts[:-1])


def _junit_id(node_id: str) -> str:
    """`tests/e2e/test_flow.py::TestX::test_y[a]` as the JUnit report names it."""
    path, _, rest = node_id.partition("::")
    module = path.removesuffix(".py").replace("/", ".")
    *classes, name = rest.split("::")
    return f"{'.'.join([module, *classes])}::{name}"


def _marked(marker: str) -> set[str]:
    listed = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-m", marker, "-p", "no:randomly"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    return {_junit_id(line) for line in listed.splitlines() if "::" in line}


def _table(title: str, rows: dict[str, list[float]]) -> str:
    lines = [f"| {title} | tests | seconds |", "| --- | ---: | ---: |"]
    for key, values in sorted(rows.items(), key=lambda item: -sum(item[1])):
        lines.append(f"| {key} | {len(values)} | {sum(values):.0f} |")
    return "\n".join(lines)


def main(report: Path) -> None:
    times = _test_times(report)
    by_directory: dict[str, list[float]] = defaultdict(list)
    for test, seconds in times:
        by_directory[_directory(test)].append(seconds)
    # A test with two markers counts in both rows; the fast tier is the tests with none.
    by_marker: dict[str, list[float]] = {}
    marked_any: set[str] = set()
    for marker in TIER_MARKERS:
        marked = _marked(marker)
        marked_any |= marked
        by_marker[marker] = [seconds for test, seconds in times if test in marked]
    by_marker["(none: the fast tier)"] = [s for test, s in times if test not in marked_any]
    print(f"{len(times)} tests, {sum(s for _, s in times):.0f} s in all\n")
    print(_table("directory", by_directory), end="\n\n")
    print(_table("marker", by_marker), end="\n\n")
    print("| slowest tests | seconds |\n| --- | ---: |")
    for test, seconds in sorted(times, key=lambda item: -item[1])[:30]:
        print(f"| `{test}` | {seconds:.1f} |")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
