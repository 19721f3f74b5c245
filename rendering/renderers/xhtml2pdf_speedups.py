"""Patches that make ReportLab's layout cheaper without changing what it draws."""

from __future__ import annotations

from typing import Any

from reportlab.pdfgen.canvas import ShowBoundaryValue


def _same_value(self: ShowBoundaryValue, memo: dict[int, Any]) -> ShowBoundaryValue:
    return self


# ReportLab deep-copies the current frame each time it measures a list of flowables
# (once per table cell per wrap: 27,000 times for the 50-page sample), and most of that
# copy was the frame's showBoundary setting going through copy's generic _reconstruct
# (~10 % of the layout). Layout never changes it, so every copy can share it.
ShowBoundaryValue.__deepcopy__ = _same_value
