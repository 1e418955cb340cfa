"""The usage models as they were in the `routing` app, whose tables they keep (Meta.db_table).

State only: on a database that applied routing.0001_initial the tables are there already, and on
a fresh one routing.0001_initial creates them; routing.0002 hands them over (tests/usage/
test_usage_migration_from_routing.py checks both).
"""

import django.contrib.postgres.fields
import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('api', '0001_initial'),
        ('routing', '0002_usage_models_moved_to_the_usage_app'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
            migrations.CreateModel(
                name='DailyUsage',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('day', models.DateField(unique=True)),
                    ('requests', models.IntegerField(default=0)),
                    ('route_requests', models.IntegerField(default=0)),
                    ('tool_search_requests', models.IntegerField(default=0)),
                    ('filter_requests', models.IntegerField(default=0)),
                    ('latency_sum_ms', models.FloatField(default=0)),
                    ('latency_p50_ms', models.FloatField(blank=True, null=True)),
                    ('latency_p95_ms', models.FloatField(blank=True, null=True)),
                    ('latency_histogram', django.contrib.postgres.fields.ArrayField(base_field=models.IntegerField(), blank=True, default=list, size=None)),
                    ('tokens_selected', models.BigIntegerField(default=0)),
                    ('tokens_catalog', models.BigIntegerField(default=0)),
                    ('tokens_saved', models.BigIntegerField(default=0)),
                    ('strategy_fast', models.IntegerField(default=0)),
                    ('strategy_semantic', models.IntegerField(default=0)),
                    ('strategy_hybrid', models.IntegerField(default=0)),
                    ('strategy_hierarchical', models.IntegerField(default=0)),
                    ('strategy_fallback', models.IntegerField(default=0)),
                    ('strategy_other', models.IntegerField(default=0)),
                    ('low_confidence', models.IntegerField(default=0)),
                    ('no_results', models.IntegerField(default=0)),
                    ('feedback', models.IntegerField(default=0)),
                    ('feedback_success', models.IntegerField(default=0)),
                    ('feedback_failure', models.IntegerField(default=0)),
                    ('tools_used', models.IntegerField(default=0)),
                    ('tools_offered_and_used', models.IntegerField(default=0)),
                    ('tools_missed', models.IntegerField(default=0)),
                    ('rolled_up_at', models.DateTimeField(auto_now=True)),
                ],
                options={
                    'db_table': 'routing_dailyusage',
                    'verbose_name_plural': 'daily usage',
                    'ordering': ['day'],
                },
            ),
            migrations.CreateModel(
                name='DailyCategoryUsage',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('day', models.DateField()),
                    ('category', models.CharField(max_length=128)),
                    ('requests', models.IntegerField(default=0)),
                ],
                options={
                    'db_table': 'routing_dailycategoryusage',
                    'constraints': [models.UniqueConstraint(fields=('day', 'category'), name='unique_daily_category')],
                },
            ),
            migrations.CreateModel(
                name='DailyClientUsage',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('day', models.DateField()),
                    ('client', models.CharField(max_length=128)),
                    ('requests', models.IntegerField(default=0)),
                    ('latency_sum_ms', models.FloatField(default=0)),
                    ('tokens_saved', models.BigIntegerField(default=0)),
                    ('tokens_catalog', models.BigIntegerField(default=0)),
                    ('fallback', models.IntegerField(default=0)),
                ],
                options={
                    'db_table': 'routing_dailyclientusage',
                    'constraints': [models.UniqueConstraint(fields=('day', 'client'), name='unique_daily_client')],
                },
            ),
            migrations.CreateModel(
                name='DailyQueryMiss',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('day', models.DateField()),
                    ('query_hash', models.CharField(max_length=64)),
                    ('query', models.TextField(blank=True, null=True)),
                    ('count', models.IntegerField(default=0)),
                    ('no_results', models.IntegerField(default=0)),
                    ('best_confidence', models.FloatField(blank=True, null=True)),
                ],
                options={
                    'db_table': 'routing_dailyquerymiss',
                    'constraints': [models.UniqueConstraint(fields=('day', 'query_hash'), name='unique_daily_query_miss')],
                },
            ),
            migrations.CreateModel(
                name='DailyToolUsage',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('day', models.DateField()),
                    ('tool', models.CharField(max_length=128)),
                    ('offered', models.IntegerField(default=0)),
                    ('used', models.IntegerField(default=0)),
                    ('unused', models.IntegerField(default=0)),
                    ('missed', models.IntegerField(default=0)),
                ],
                options={
                    'db_table': 'routing_dailytoolusage',
                    'constraints': [models.UniqueConstraint(fields=('day', 'tool'), name='unique_daily_tool')],
                },
            ),
            migrations.CreateModel(
                name='Feedback',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('request_id', models.CharField(max_length=64, unique=True)),
                    ('used_tools', django.contrib.postgres.fields.ArrayField(base_field=models.CharField(max_length=128), blank=True, default=list, size=None)),
                    ('offered_and_used', django.contrib.postgres.fields.ArrayField(base_field=models.CharField(max_length=128), blank=True, default=list, size=None)),
                    ('offered_unused', django.contrib.postgres.fields.ArrayField(base_field=models.CharField(max_length=128), blank=True, default=list, size=None)),
                    ('missed', django.contrib.postgres.fields.ArrayField(base_field=models.CharField(max_length=128), blank=True, default=list, size=None)),
                    ('success', models.BooleanField(blank=True, null=True)),
                    ('created_at', models.DateTimeField(db_index=True)),
                    ('api_key', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='api.apikey')),
                ],
                options={
                    'db_table': 'routing_feedback',
                    'verbose_name_plural': 'feedback',
                },
            ),
            migrations.CreateModel(
                name='RequestLog',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('created_at', models.DateTimeField()),
                    ('request_id', models.CharField(max_length=64, unique=True)),
                    ('client', models.CharField(blank=True, max_length=128)),
                    ('toolset', models.CharField(blank=True, max_length=128, null=True)),
                    ('endpoint', models.CharField(choices=[('route', 'route'), ('tool_search', 'tool-search'), ('filter', 'filter')], max_length=16)),
                    ('query', models.TextField(blank=True, help_text='Empty when USAGE_QUERY_STORAGE is hash or drop.', null=True)),
                    ('query_hash', models.CharField(blank=True, max_length=64)),
                    ('strategy', models.CharField(blank=True, max_length=64)),
                    ('strategy_class', models.CharField(choices=[('fast', 'fast path'), ('semantic', 'semantic'), ('hybrid', 'hybrid'), ('hierarchical', 'hierarchical'), ('fallback', 'fallback'), ('other', 'other')], max_length=16)),
                    ('confidence', models.FloatField(blank=True, null=True)),
                    ('fallback', models.BooleanField(default=False)),
                    ('categories', django.contrib.postgres.fields.ArrayField(base_field=models.CharField(max_length=128), blank=True, default=list, size=None)),
                    ('results', models.JSONField(blank=True, default=list, help_text='[{"name", "rank", "score"}]')),
                    ('latency_ms', models.FloatField()),
                    ('tokens_selected', models.IntegerField(default=0)),
                    ('tokens_catalog', models.IntegerField(default=0)),
                    ('tokens_saved', models.IntegerField(default=0)),
                    ('session_id', models.CharField(blank=True, max_length=128, null=True)),
                    ('api_key', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='api.apikey')),
                ],
                options={
                    'db_table': 'routing_requestlog',
                    'indexes': [models.Index(fields=['created_at'], name='requestlog_created_at')],
                },
            ),
            ],
        ),
    ]
