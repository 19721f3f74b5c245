"""Handlebars isolates survive Django's ASGI threading: each request's sync code runs on a
thread that ends with the request, and mini-racer used to crash the process (SIGSEGV) when
such a thread had made the shared parser and a later one made an isolate."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from config.settings.base import BASE_DIR

pytestmark = pytest.mark.process


SCRIPT = textwrap.dedent(
    """
    import threading
    from rendering.engines.handlebars import HandlebarsEngine
    from rendering.errors import ApplicationError

    def request(n):  # what one template submit does: parse, then load the helpers
        engine = HandlebarsEngine()
        engine.check("<p>{{name}}</p>" if n % 2 else "{{#if}}")
        try:
            engine.check_helpers(f"function h{n}() {{ return {n}; }}")
            engine.check_helpers("1n" if n % 3 else "function (")
        except ApplicationError:
            pass
        assert engine.render("{{h}}", {"h": n}) == str(n)

    for n in range(20):
        thread = threading.Thread(target=request, args=(n,))
        thread.start()
        thread.join()
    print("done")
    """
)


def test_isolates_made_on_threads_that_end_do_not_crash_the_process():
    # A process of its own: the crash this guards against kills the interpreter (also at
    # exit, when the shared parser used to be closed from the wrong thread).
    finished = subprocess.run(
        [sys.executable, "-c", SCRIPT], cwd=BASE_DIR, capture_output=True, text=True, timeout=120
    )
    assert (finished.returncode, finished.stdout.strip()) == (0, "done"), finished.stderr[-2000:]
