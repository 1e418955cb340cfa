"""The usage log and its rollups moved to the `usage` app (usage/models.py), tables and all.

State only: the tables stay as they are (the usage models name them with Meta.db_table) and
usage.0001_initial takes them over. Nothing is copied or dropped.
"""
from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('routing', '0001_initial'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.DeleteModel(name='DailyCategoryUsage'),
                migrations.DeleteModel(name='DailyClientUsage'),
                migrations.DeleteModel(name='DailyQueryMiss'),
                migrations.DeleteModel(name='DailyToolUsage'),
                migrations.DeleteModel(name='DailyUsage'),
                migrations.DeleteModel(name='Feedback'),
                migrations.DeleteModel(name='RequestLog'),
            ],
        ),
    ]
