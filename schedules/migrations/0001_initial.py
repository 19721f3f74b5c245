"""Schedule and ScheduleRun move from jobs to schedules (issue 40): state only. Their
tables keep the names they were made with (db_table pins jobs_schedule and
jobs_schedulerun), every index is named, and no table points at them, so the database is
not touched. The content types (and the admin's permissions and history through them)
follow the models. Pattern: sentry's monitors/0001_initial, as runs/0001_initial."""

import uuid

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

MOVED = ("schedule", "schedulerun")


def content_types_follow(apps, schema_editor):
    _relabel(apps, source="jobs", target="schedules")


def content_types_return(apps, schema_editor):
    _relabel(apps, source="schedules", target="jobs")


def _relabel(apps, *, source, target):
    ContentType = apps.get_model("contenttypes", "ContentType")
    for model in MOVED:
        if not ContentType.objects.filter(app_label=target, model=model).exists():
            ContentType.objects.filter(app_label=source, model=model).update(app_label=target)


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("accounts", "0010_sso_identity"),
        ("jobs", "0028_runs_moved_to_runs_app"),
        ("reports", "0010_template_published_version"),
        ("workspaces", "0008_sso_domain_verified"),
        ("contenttypes", "0002_remove_content_type_name"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
            migrations.CreateModel(
                name='Schedule',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('schedule_id', models.UUIDField(default=uuid.uuid4, editable=False, unique=True)),
                    ('name', models.CharField(blank=True, max_length=200)),
                    ('data', models.JSONField(blank=True, default=dict)),
                    ('data_url', models.URLField(blank=True, max_length=2000)),
                    ('cron', models.CharField(help_text='Five fields: minute hour dom month dow.', max_length=100)),
                    ('timezone', models.CharField(default='UTC', max_length=64)),
                    ('deliveries', models.JSONField(blank=True, default=list)),
                    ('paused', models.BooleanField(default=False)),
                    ('paused_reason', models.CharField(blank=True, max_length=200)),
                    ('next_run_at', models.DateTimeField(blank=True, null=True)),
                    ('created_at', models.DateTimeField(auto_now_add=True)),
                    ('updated_at', models.DateTimeField(auto_now=True)),
                    ('api_key', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='accounts.apikey')),
                    ('created_by', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='schedules', to=settings.AUTH_USER_MODEL)),
                    ('template', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='schedules', to='reports.reporttemplate')),
                    ('workspace', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='schedules', to='workspaces.workspace')),
                ],
                options={
                    'db_table': 'jobs_schedule',
                    'ordering': ['-created_at'],
                },
            ),
            migrations.CreateModel(
                name='ScheduleRun',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('run_id', models.UUIDField(default=uuid.uuid4, editable=False, unique=True)),
                    ('trigger', models.CharField(choices=[('tick', 'Cron tick'), ('manual', 'Run now')], max_length=10)),
                    ('scheduled_for', models.DateTimeField()),
                    ('started_at', models.DateTimeField(auto_now_add=True)),
                    ('finished_at', models.DateTimeField(blank=True, null=True)),
                    ('outcome', models.CharField(choices=[('starting', 'Starting'), ('rendering', 'Rendering'), ('delivering', 'Delivering'), ('delivered', 'Delivered'), ('delivery_failed', 'Delivery failed'), ('failed', 'Failed')], db_index=True, default='starting', max_length=20)),
                    ('error', models.TextField(blank=True)),
                    ('delivery_results', models.JSONField(blank=True, default=list)),
                    ('delivery_attempts', models.PositiveSmallIntegerField(default=0)),
                    ('mail_recipients', models.PositiveIntegerField(default=0)),
                    ('delivery_claimed_at', models.DateTimeField(blank=True, null=True)),
                    ('mailed_at', models.DateTimeField(blank=True, null=True)),
                    ('job', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='jobs.pdfjob')),
                    ('schedule', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='runs', to='schedules.schedule')),
                ],
                options={
                    'db_table': 'jobs_schedulerun',
                    'ordering': ['-started_at'],
                },
            ),
            migrations.AddIndex(
                model_name='schedule',
                index=models.Index(condition=models.Q(('paused', False)), fields=['next_run_at'], name='schedule_due_idx'),
            ),
            migrations.AddIndex(
                model_name='schedule',
                index=models.Index(fields=['workspace', '-created_at'], name='schedule_workspace_idx'),
            ),
            migrations.AddIndex(
                model_name='schedulerun',
                index=models.Index(fields=['schedule', '-started_at'], name='schedule_run_idx'),
            ),
            migrations.AddIndex(
                model_name='schedulerun',
                index=models.Index(fields=['mailed_at'], name='schedule_run_mailed_idx'),
            ),
    
            ],
            database_operations=[],
        ),
        migrations.RunPython(content_types_follow, content_types_return),
    ]
