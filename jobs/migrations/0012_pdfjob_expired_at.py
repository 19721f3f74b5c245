# Retention: a job whose PDF was deleted keeps its row, marked expired.

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('jobs', '0011_pdfjob_batch_id'),
    ]

    operations = [
        migrations.AddField(
            model_name='pdfjob',
            name='expired_at',
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddIndex(
            model_name='pdfjob',
            index=models.Index(condition=models.Q(('expired_at__isnull', True), models.Q(('pdf_file', ''), _negated=True)), fields=['completed_at'], name='job_pdf_kept_idx'),
        ),
        migrations.AddIndex(
            model_name='pdfjob',
            index=models.Index(condition=models.Q(('pdf_file', ''), _negated=True), fields=['pdf_file'], name='job_pdf_file_idx'),
        ),
    ]
