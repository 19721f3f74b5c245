# A template can make the result cache the default for its submits.

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('reports', '0004_template_version_renderer_and_helpers'),
    ]

    operations = [
        migrations.AddField(
            model_name='reporttemplate',
            name='cache_results',
            field=models.BooleanField(default=False, help_text='Submits reuse an identical earlier PDF unless they say cache: false.'),
        ),
    ]
