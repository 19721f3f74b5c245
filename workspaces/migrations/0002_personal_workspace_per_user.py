# Every existing user gets a personal workspace (as its owner), and everything they owned
# (templates, jobs, API keys with their webhook secrets) moves into it.

from django.db import migrations
from django.utils.text import slugify


def personal_slug(user):
    # The pk makes it unique even where two usernames slugify alike.
    return f"{slugify(user.username)[:80] or 'user'}-{user.pk}"


def fill(apps, schema_editor):
    User = apps.get_model("auth", "User")
    Workspace = apps.get_model("workspaces", "Workspace")
    Membership = apps.get_model("workspaces", "Membership")
    ReportTemplate = apps.get_model("reports", "ReportTemplate")
    PdfJob = apps.get_model("jobs", "PdfJob")
    ApiKey = apps.get_model("accounts", "ApiKey")
    for user in User.objects.order_by("pk").iterator():
        workspace = Workspace.objects.create(
            name=user.username, slug=personal_slug(user), personal=True
        )
        Membership.objects.create(user=user, workspace=workspace, role="owner")
        # Built-ins (owner null) stay without a workspace: every workspace sees them.
        ReportTemplate.objects.filter(owner=user).update(workspace=workspace)
        PdfJob.objects.filter(owner=user).update(workspace=workspace)
        # A key could do whatever its user could; in the user's own workspace that is owner.
        ApiKey.objects.filter(user=user).update(workspace=workspace, role="owner")


def empty(apps, schema_editor):
    # Unlink first: deleting a workspace would cascade to the rows it owns.
    for label in ("reports.ReportTemplate", "jobs.PdfJob", "accounts.ApiKey"):
        apps.get_model(label).objects.update(workspace=None)
    apps.get_model("workspaces", "Workspace").objects.filter(personal=True).delete()


class Migration(migrations.Migration):

    dependencies = [
        ("workspaces", "0001_create_workspace_and_membership"),
        ("accounts", "0007_apikey_workspace_and_role"),
        ("reports", "0007_template_workspace"),
        ("jobs", "0018_pdfjob_workspace"),
    ]

    operations = [migrations.RunPython(fill, empty)]
