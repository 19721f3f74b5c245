"""A document that reloads or navigates itself, in a loop or once, is laid out as it is
(with a warning), never failed as transient: a tenant's script must not turn into
retries, dead letters, alerts and re-drives."""

from __future__ import annotations

import pytest

from rendering.options import parse_options
from rendering.report import TemplateSource, report_render
from reports.limits import limits_from_settings
from tests.conftest import pdf_text
from tests.rendering.conftest import CHROMIUM

pytestmark = [
    pytest.mark.process,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="apt-get install chromium"),
]


@pytest.mark.parametrize(
    "script",
    [
        "location.reload()",
        "setTimeout(() => location.reload(), 10)",
        "location.replace(location.href)",
        "history.go(0)",
    ],
)
def test_a_reloading_document_is_laid_out_once_with_a_warning(script, settings):
    settings.CHROMIUM_PATH = str(CHROMIUM)
    rendered = report_render(
        source=TemplateSource(
            engine="raw", html=f"<p>Still here</p><script>{script}</script>", renderer="chromium"
        ),
        data={},
        options=parse_options({}),
        limits=limits_from_settings(),
    )
    assert "Still here" in pdf_text(rendered.content)[1]
    assert any("may not navigate" in warning for warning in rendered.warnings)
