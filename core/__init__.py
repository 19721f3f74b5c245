"""Shared plumbing the apps import: API fields and errors, middleware, logging, metrics files."""
