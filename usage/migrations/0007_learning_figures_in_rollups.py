import datetime

from django.db import migrations, models

ROLLUP_MODELS = ("DailyUsage", "DailyToolUsage", "DailyCategoryUsage", "DailyQueryMiss")


def reroll_days_with_raw_rows(apps, schema_editor):
    """Days rolled up before these columns have them at zero. Those whose raw rows are still kept lose
    their rollups, so that the dashboard reads their raw rows until the next prune-and-roll-up run
    rolls them up again with the new figures. Days before the first raw row keep what they have:
    nothing could rebuild it (the learning card's evidence and recall stay right there, from the
    older columns; only its count of requests needing a tool, proxy evidence and mean rank lack them)."""
    RequestLog = apps.get_model("usage", "RequestLog")
    first = RequestLog.objects.aggregate(first=models.Min("created_at"))["first"]
    if first is None:
        return
    first_day = first.astimezone(datetime.UTC).date()
    for name in ROLLUP_MODELS:
        apps.get_model("usage", name).objects.filter(day__gte=first_day).delete()


class Migration(migrations.Migration):

    dependencies = [
        ('usage', '0006_daytorollup'),
    ]

    operations = [
        migrations.AddField(
            model_name='dailyusage',
            name='feedback_proxy',
            field=models.IntegerField(default=0),
        ),
        migrations.AddField(
            model_name='dailyusage',
            name='feedback_needing_tools',
            field=models.IntegerField(default=0),
        ),
        migrations.AddField(
            model_name='dailyusage',
            name='used_rank_sum',
            field=models.BigIntegerField(default=0),
        ),
        migrations.AddField(
            model_name='dailyusage',
            name='used_ranked',
            field=models.IntegerField(default=0),
        ),
        migrations.RunPython(reroll_days_with_raw_rows, migrations.RunPython.noop),
    ]
