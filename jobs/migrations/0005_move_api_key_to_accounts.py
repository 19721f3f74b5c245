# ApiKey now belongs to the accounts app (accounts.0001 takes over the same table); only
# the model state leaves jobs: no table or row is touched.

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('jobs', '0004_pdfjob_template_version'),
        ('accounts', '0001_move_api_key_from_jobs'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name='ApiKey')],
            database_operations=[],
        ),
    ]
