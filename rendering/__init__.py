"""Turning a template plus data into a PDF: a plain package with no models and no settings.

The entry point is `rendering.report.report_render(source, data, options, limits)`."""
