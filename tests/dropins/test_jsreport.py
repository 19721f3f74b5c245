"""jsreport's chrome-pdf settings in our options' terms."""

from __future__ import annotations

import pytest

from dropins.jsreport import chrome_options
from rendering.errors import InvalidInput
from rendering.options import parse_options


def test_chrome_settings_become_our_options():
    options = chrome_options(
        {
            "format": "Letter",
            "landscape": True,
            "marginTop": "96px",
            "marginLeft": "1cm",
            "displayHeaderFooter": True,
            "footerTemplate": '<div>p. <span class="pageNumber"></span></div>',
        }
    )
    assert options == {
        "page_size": "Letter",
        "orientation": "landscape",
        "margin": "25.4mm 0mm 0mm 1cm",
        "footer": "p. {page}",
    }
    assert parse_options(options).margin == "25.4mm 0mm 0mm 1cm"


def test_unsupported_chrome_settings_are_refused():
    with pytest.raises(InvalidInput, match="scale"):
        chrome_options({"scale": 0.5})
    with pytest.raises(InvalidInput, match="marginTop"):
        chrome_options({"marginTop": "1em"})
