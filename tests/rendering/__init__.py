"""Tests of the renderers: real WeasyPrint, real Chromium, real xhtml2pdf."""
