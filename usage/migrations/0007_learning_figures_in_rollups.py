import datetime

import django.utils.timezone
from django.db import migrations, models


def reroll_days_with_raw_rows(apps, schema_editor):
    """Days rolled up before these columns have them at zero. Those from the first raw row on are
    marked to be rolled up again (`DayToRollUp`), and the next prune-and-roll-up run does so for
    every one whose raw rows are still whole; it drops the marks of days retention has thinned
    (a late-drained record can be older than the cutoff), which keep their rollups. No rollup is
    deleted: until that run the card reads these days' older columns (evidence and recall right,
    the count of requests needing a tool, proxy evidence and mean rank not yet). Days before the
    first raw row keep what they have: nothing could rebuild it."""
    RequestLog = apps.get_model("usage", "RequestLog")
    DailyUsage = apps.get_model("usage", "DailyUsage")
    DayToRollUp = apps.get_model("usage", "DayToRollUp")
    first = RequestLog.objects.aggregate(first=models.Min("created_at"))["first"]
    if first is None:
        return
    first_day = first.astimezone(datetime.UTC).date()
    days = set(DailyUsage.objects.filter(day__gte=first_day).values_list("day", flat=True))
    now = django.utils.timezone.now()
    DayToRollUp.objects.bulk_create([DayToRollUp(day=day, marked_at=now) for day in sorted(days)],
                                    ignore_conflicts=True)


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
