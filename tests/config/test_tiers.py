"""The fast tier's guard (tests/markers.py): a test without a tier marker that starts a
server or a browser driver is caught, whatever starts it."""

from __future__ import annotations

import subprocess

import pytest

from tests import markers


def test_a_server_started_during_a_fast_test_is_named(tmp_path):
    server = tmp_path / "moto_server"  # named like the S3 server the store tests start
    server.write_text("#!/bin/sh\nexit 0\n")
    server.chmod(0o755)
    markers._started.clear()
    markers._watching.append(True)
    try:
        subprocess.run([str(tmp_path / "moto_server"), "-p", "1"], check=True)
        subprocess.run(["true"], check=True)  # a short tool is not counted
    finally:
        markers._watching.clear()
    assert markers._started == ["moto_server"]
    markers._started.clear()
    subprocess.run([str(server)], check=True)  # nothing is recorded while not watching
    assert markers._started == []


@pytest.mark.parametrize("module", ["a", "b"], ids=["weasyprint", "chromium"])
def test_a_renderer_passed_as_a_module_marks_its_chromium_case(request, module):
    marked = request.node.get_closest_marker("process") is not None
    assert marked == (module == "b")


def test_a_multihost_test_outside_its_directory_stops_the_collection():
    class Item:
        nodeid = "tests/e2e/test_x.py::test_y"

        def get_closest_marker(self, name):
            return object() if name == "multihost" else None

    with pytest.raises(pytest.UsageError, match="collects only tests/multihost/"):
        markers.multihost_placed(Item())
    Item.nodeid = "tests/multihost/test_x.py::test_y"
    markers.multihost_placed(Item())  # where make test-multihost finds it
