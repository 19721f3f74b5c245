# Every signing certificate moves into its uploader's personal workspace, as workspaces'
# 0002 moved templates, jobs and API keys: that is where the jobs that used it are.

from django.db import migrations
from django.utils.text import slugify


def personal_slug(user):
    return f"{slugify(user.username)[:80] or 'user'}-{user.pk}"


def fill(apps, schema_editor):
    Workspace = apps.get_model("workspaces", "Workspace")
    Membership = apps.get_model("workspaces", "Membership")
    SigningCertificate = apps.get_model("accounts", "SigningCertificate")
    for certificate in SigningCertificate.objects.filter(workspace=None).select_related("user"):
        user = certificate.user
        workspace = Workspace.objects.filter(
            personal=True, memberships__user=user, memberships__role="owner"
        ).first()
        if workspace is None:  # a user no request has given one yet (workspace_personal)
            workspace = Workspace.objects.create(
                name=user.username, slug=personal_slug(user), personal=True
            )
            Membership.objects.create(user=user, workspace=workspace, role="owner")
        SigningCertificate.objects.filter(pk=certificate.pk).update(workspace=workspace)


def empty(apps, schema_editor):
    apps.get_model("accounts", "SigningCertificate").objects.update(workspace=None)


class Migration(migrations.Migration):

    dependencies = [
        ("accounts", "0008_signing_certificate_workspace"),
        ("workspaces", "0002_personal_workspace_per_user"),
    ]

    operations = [migrations.RunPython(fill, empty)]
