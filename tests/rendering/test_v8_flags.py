"""Parser isolates on threads made before V8 started: on a machine with memory protection
keys (PKU) V8's defaults crashed the process (SIGSEGV) at the second thread's isolate; with
our flags every thread parses. In a new process, where V8 has not started yet."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.process

SCRIPT = """
import threading
import time
from rendering.engines import handlebars

handlebars.HandlebarsEngine().check("<p>{{warm}}</p>")  # V8 starts on a parser thread
results = []
# The first parse holds its V8 thread until another parse has ended: that one went to a
# less busy thread and made an isolate there. (Without the hold, on a loaded machine each
# quick parse could end before the next began, all on the first thread: one isolate.)
hold = threading.Event()

def held(thread, *args):
    hold.wait(60)
    return handlebars._parse(thread, *args)

def parse(work, n):
    results.append(handlebars._on_v8_thread(work, f"<p>{{{{x}}}} {n}</p>", "handlebars"))

first = threading.Thread(target=parse, args=(held, 0))
first.start()
while not any(v8.pending for v8 in handlebars._v8):
    time.sleep(0.01)
threads = [threading.Thread(target=parse, args=(handlebars._parse, n)) for n in range(1, 8)]
for thread in threads:
    thread.start()
while not results:
    time.sleep(0.01)
hold.set()
for thread in [first, *threads]:
    thread.join()
print(len(results), len({id(v8.parser) for v8 in handlebars._v8 if v8.parser}))
"""


def test_every_parser_thread_makes_its_isolate_after_v8_started_elsewhere():
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        cwd=Path(__file__).parents[2],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    parsed, isolates = map(int, done.stdout.split())
    assert parsed == 8
    assert isolates >= 2  # more than the thread that started V8 made one
