"""App config for dropins: other services' APIs (Gotenberg, jsreport, DocRaptor) onto our jobs."""

from django.apps import AppConfig


class DropinsConfig(AppConfig):
    name = "dropins"
    verbose_name = "Drop-in routes"
