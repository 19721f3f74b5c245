"""Turning a template, data, options and limits into a PDF; knows nothing of Django models."""
