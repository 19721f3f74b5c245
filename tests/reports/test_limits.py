from __future__ import annotations

from django.test import override_settings

from reports.limits import _limits_read, limits_from_settings


def test_limits_are_built_once_and_equal_the_settings() -> None:
    first = limits_from_settings()
    assert first is limits_from_settings()
    assert first == _limits_read()


def test_a_changed_setting_is_read_again(settings) -> None:
    before = limits_from_settings()
    settings.PDF_MAX_PAGES = before.max_pages + 1
    assert limits_from_settings().max_pages == before.max_pages + 1
    with override_settings(PDF_MAX_DATA_BYTES=123):
        assert limits_from_settings().max_data_bytes == 123
    assert limits_from_settings().max_data_bytes == before.max_data_bytes


def test_a_render_budget_overrides_only_that_limit() -> None:
    limits = limits_from_settings(max_render_seconds=7)
    assert limits.max_render_seconds == 7
    assert limits == limits_from_settings().__class__(
        **{**limits_from_settings().__dict__, "max_render_seconds": 7}
    )
