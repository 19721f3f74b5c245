"""Run and RunRecord move from jobs to runs (issue 40): state only. Their tables keep the
names they were made with (db_table pins jobs_run and jobs_runrecord), every index and
constraint is named, and no table points at them, so the database is not touched. The
content types (and the admin's permissions and history through them) follow the models.
Pattern: sentry's monitors/0001_initial."""

import uuid

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

MOVED = ("run", "runrecord")


def content_types_follow(apps, schema_editor):
    _relabel(apps, source="jobs", target="runs")


def content_types_return(apps, schema_editor):
    _relabel(apps, source="runs", target="jobs")


def _relabel(apps, *, source, target):
    ContentType = apps.get_model("contenttypes", "ContentType")
    for model in MOVED:
        if not ContentType.objects.filter(app_label=target, model=model).exists():
            ContentType.objects.filter(app_label=source, model=model).update(app_label=target)


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("jobs", "0027_schedule_run_delivery_claim"),
        ("reports", "0010_template_published_version"),
        ("workspaces", "0008_sso_domain_verified"),
        ("contenttypes", "0002_remove_content_type_name"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
            migrations.CreateModel(
                name='Run',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('run_id', models.UUIDField(default=uuid.uuid4, editable=False, unique=True)),
                    ('output', models.CharField(choices=[('zip', 'One ZIP of the PDFs'), ('combined', 'One combined PDF'), ('separate', 'Separate PDFs')], default='zip', max_length=10)),
                    ('filename_pattern', models.CharField(blank=True, max_length=300)),
                    ('status', models.CharField(choices=[('running', 'Running'), ('completed', 'Completed'), ('partial', 'Completed with failures'), ('failed', 'Failed')], db_index=True, default='running', max_length=10)),
                    ('total', models.PositiveIntegerField(default=0, help_text='Records sent, valid or not.')),
                    ('completed', models.PositiveIntegerField(default=0)),
                    ('failed', models.PositiveIntegerField(default=0)),
                    ('combined_file', models.CharField(blank=True, max_length=500)),
                    ('combined_started_at', models.DateTimeField(blank=True, null=True)),
                    ('combined_done', models.PositiveIntegerField(default=0)),
                    ('event_seq', models.PositiveIntegerField(default=0)),
                    ('created_at', models.DateTimeField(auto_now_add=True)),
                    ('finished_at', models.DateTimeField(blank=True, null=True)),
                    ('owner', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to=settings.AUTH_USER_MODEL)),
                    ('template', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='runs', to='reports.reporttemplate')),
                    ('workspace', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='runs', to='workspaces.workspace')),
                ],
                options={
                    'db_table': 'jobs_run',
                    'ordering': ['-created_at'],
                },
            ),
            migrations.CreateModel(
                name='RunRecord',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('index', models.PositiveIntegerField(help_text='Position in the request, from 0.')),
                    ('data', models.JSONField(blank=True, default=dict)),
                    ('error', models.TextField(blank=True, help_text='Why the record was refused at submit.')),
                    ('job', models.OneToOneField(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='run_record', to='jobs.pdfjob')),
                    ('run', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='records', to='runs.run')),
                ],
                options={
                    'db_table': 'jobs_runrecord',
                    'ordering': ['index'],
                },
            ),
            migrations.AddIndex(
                model_name='run',
                index=models.Index(fields=['workspace', '-created_at'], name='run_workspace_idx'),
            ),
            migrations.AddConstraint(
                model_name='runrecord',
                constraint=models.UniqueConstraint(fields=('run', 'index'), name='run_record_index_unique'),
            ),
    
            ],
            database_operations=[],
        ),
        migrations.RunPython(content_types_follow, content_types_return),
    ]
