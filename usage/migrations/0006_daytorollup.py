from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('usage', '0005_per_client_rollups'),
    ]

    operations = [
        migrations.CreateModel(
            name='DayToRollUp',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('day', models.DateField(unique=True)),
                ('marked_at', models.DateTimeField()),
            ],
        ),
    ]
