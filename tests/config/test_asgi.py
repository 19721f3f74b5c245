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


@pytest.mark.process
def test_building_the_urlconf_leaves_no_resolver_state_in_the_process_context():
    # Every request's context is a copy of this one, and asgiref copies each Local in it
    # back and forth at every thread hop: the resolvers' `populating` flags must not be in it.
    code = (
        "import contextvars, json; import config.asgi; "
        "from asgiref.local import _Storage; from django.urls import get_resolver; "
        "context = contextvars.copy_context(); "
        "left = [v.data for v in context.values() if isinstance(v, _Storage)]; "
        "print(json.dumps([sum('populating' in d for d in left), "
        "get_resolver()._populated, len(get_resolver().reverse_dict) > 10]))"
    )
    populating, populated, indexed = python_answer(code)
    assert populating == 0
    assert populated  # built all the same, before the first request
    assert indexed
