"""The web process's start (config/asgi.py): the URLconf built and what it loaded frozen out
of the garbage collector, whatever server imports the application."""

from __future__ import annotations

import pytest

from tests.processes import python_answer


@pytest.mark.process  # a Python of its own: this one's collector state is the suite's
def test_a_web_process_freezes_what_it_loaded_and_builds_the_urlconf_first():
    code = (
        "import gc, json, sys; import config.asgi; "
        "print(json.dumps([gc.get_freeze_count(), len(gc.get_objects()), "
        "'jobs.api.views' in sys.modules]))"
    )
    frozen, tracked, views_imported = python_answer(code)
    # A full collection walked all of these with every request in the process waiting.
    assert frozen > 50_000
    assert tracked < frozen // 10
    assert views_imported  # the URLconf was built before the freeze, not by a first request
