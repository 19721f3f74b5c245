# Result cache: the content hash of what a job renders, and the job a cache hit reuses.

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('jobs', '0012_pdfjob_expired_at'),
    ]

    operations = [
        migrations.AddField(
            model_name='pdfjob',
            name='cache_key',
            field=models.CharField(blank=True, max_length=64),
        ),
        migrations.AddField(
            model_name='pdfjob',
            name='cached_from',
            field=models.UUIDField(blank=True, null=True),
        ),
        migrations.AddIndex(
            model_name='pdfjob',
            index=models.Index(condition=models.Q(('cache_key', ''), _negated=True), fields=['owner', 'cache_key'], name='job_owner_cache_key_idx'),
        ),
    ]
