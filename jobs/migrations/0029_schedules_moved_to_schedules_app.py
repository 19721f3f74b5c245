"""Schedule and ScheduleRun now belong to the schedules app
(schedules/migrations/0001_initial.py): gone from jobs' state only; their tables stay,
owned by schedules."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("jobs", "0028_runs_moved_to_runs_app"),
        ("schedules", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.DeleteModel(name="ScheduleRun"),
                migrations.DeleteModel(name="Schedule"),
            ],
            database_operations=[],
        ),
    ]
