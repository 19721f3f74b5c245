"""factory-boy factories for users, templates and jobs."""

from __future__ import annotations

import factory
from django.contrib.auth import get_user_model

from jobs.models import PdfJob
from reports.models import ReportTemplate


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)

    username = factory.Sequence(lambda n: f"user{n}")


class ReportTemplateFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = ReportTemplate

    owner = factory.SubFactory(UserFactory)
    name = factory.Sequence(lambda n: f"Template {n}")
    slug = factory.Sequence(lambda n: f"template-{n}")
    engine = "handlebars"
    html = "<h1>{{title}}</h1><p>{{body}}</p>"
    css = "h1 { color: #123456; }"
    sample_data = factory.LazyFunction(lambda: {"title": "Sample", "body": "Text"})


class PdfJobFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = PdfJob

    owner = factory.SubFactory(UserFactory)
    engine = "handlebars"
    html_template = "<h1>Hello {{name}}</h1>"
    data = factory.LazyFunction(lambda: {"name": "World"})
    options = factory.LazyFunction(dict)
