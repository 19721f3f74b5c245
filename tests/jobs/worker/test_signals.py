"""The worker's main process warms what its pool children would each load on their own."""

from __future__ import annotations

from jobs.worker.signals import warm_before_fork
from rendering.glyphs import bundled_code_points


def test_the_fonts_character_maps_are_read_before_the_fork():
    bundled_code_points.cache_clear()
    warm_before_fork()
    assert bundled_code_points.cache_info().currsize == 1
    assert ord("A") in bundled_code_points()
