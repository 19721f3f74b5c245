# A template names its renderer and may carry custom Handlebars helpers.

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('reports', '0002_template_versions_schema_archive'),
    ]

    operations = [
        migrations.AddField(
            model_name='reporttemplate',
            name='renderer',
            field=models.CharField(choices=[('xhtml2pdf', 'xhtml2pdf (CSS 2.1, <pdf:…> tags, @frame)'), ('weasyprint', 'WeasyPrint (modern print CSS, no scripts)'), ('chromium', "Chromium (a browser's layout, runs the template's scripts)")], default='xhtml2pdf', help_text='What lays the HTML out as pages.', max_length=20),
        ),
        migrations.AddField(
            model_name='reporttemplate',
            name='helpers',
            field=models.TextField(blank=True, help_text='JavaScript whose top-level functions become Handlebars helpers.'),
        ),
    ]
