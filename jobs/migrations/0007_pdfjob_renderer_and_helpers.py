# A job records the renderer it is laid out with, and an inline template's helpers.

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('jobs', '0006_alert'),
    ]

    operations = [
        migrations.AddField(
            model_name='pdfjob',
            name='helpers',
            field=models.TextField(blank=True, help_text="Inline template's Handlebars helpers."),
        ),
        migrations.AddField(
            model_name='pdfjob',
            name='renderer',
            field=models.CharField(choices=[('xhtml2pdf', 'xhtml2pdf (CSS 2.1, <pdf:…> tags, @frame)'), ('weasyprint', 'WeasyPrint (modern print CSS, no scripts)'), ('chromium', "Chromium (a browser's layout, runs the template's scripts)")], default='xhtml2pdf', max_length=20),
        ),
    ]
