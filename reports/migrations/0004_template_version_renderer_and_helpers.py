# Each template version records the renderer and helpers it was saved with.

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('reports', '0003_template_renderer_and_helpers'),
    ]

    operations = [
        migrations.AddField(
            model_name='reporttemplateversion',
            name='renderer',
            field=models.CharField(choices=[('xhtml2pdf', 'xhtml2pdf (CSS 2.1, <pdf:…> tags, @frame)'), ('weasyprint', 'WeasyPrint (modern print CSS, no scripts)'), ('chromium', "Chromium (a browser's layout, runs the template's scripts)")], default='xhtml2pdf', max_length=20),
        ),
        migrations.AddField(
            model_name='reporttemplateversion',
            name='helpers',
            field=models.TextField(blank=True),
        ),
    ]
