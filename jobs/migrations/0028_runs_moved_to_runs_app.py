"""Run and RunRecord now belong to the runs app (runs/migrations/0001_initial.py): gone
from jobs' state only; their tables stay, owned by runs."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("jobs", "0027_schedule_run_delivery_claim"),
        ("runs", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.DeleteModel(name="RunRecord"),
                migrations.DeleteModel(name="Run"),
            ],
            database_operations=[],
        ),
    ]
