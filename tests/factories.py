"""factory-boy factories for users, templates and jobs."""

from __future__ import annotations

import factory
from django.contrib.auth import get_user_model

from jobs.models import PdfJob
from reports.models import ReportTemplate
from workspaces.models import Membership
from workspaces.services import workspace_personal


def _personal(obj: object, owner_field: str = "owner") -> object:
    owner = getattr(obj, owner_field)
    return None if owner is None else workspace_personal(user=owner)


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)

    username = factory.Sequence(lambda n: f"user{n}")


class ReportTemplateFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = ReportTemplate

    owner = factory.SubFactory(UserFactory)
    # The owner's own workspace; a built-in (owner=None) has none.
    workspace = factory.LazyAttribute(_personal)
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
    workspace = factory.LazyAttribute(_personal)
    engine = "handlebars"
    html_template = "<h1>Hello {{name}}</h1>"
    data = factory.LazyFunction(lambda: {"name": "World"})
    options = factory.LazyFunction(dict)


def members_with_emails(workspace, *emails: str, role: str = "viewer") -> None:
    """People in `workspace` with these account emails: what a schedule may mail."""
    for email in emails:
        user = UserFactory(username=email.split("@")[0] + "-member", email=email)
        Membership.objects.get_or_create(workspace=workspace, user=user, defaults={"role": role})
