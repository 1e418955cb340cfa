"""What follows a rename: API keys pin a renamed tool under its new name, and a renamed key's
usage history goes with it on the dashboard."""
from typing import Any

from django.db.models.signals import post_save, pre_save
from django.dispatch import receiver

from toolcatalog.signals import tool_renamed
from usage import services as usage

from . import services
from .models import ApiKey

# Set on the instance being saved: its name before the save, when the save renames it.
RENAMED_FROM = "_usage_renamed_from"


@receiver(tool_renamed)
def follow_renamed_tool(sender: Any, old_name: str, new_name: str, **kwargs: Any) -> None:
    services.rename_pinned_tool(old_name, new_name)


@receiver(pre_save, sender=ApiKey)
def note_key_rename(sender: Any, instance: ApiKey, raw: bool = False, update_fields: Any = None,
                    **kwargs: Any) -> None:
    if raw or instance.pk is None or (update_fields is not None and "name" not in update_fields):
        setattr(instance, RENAMED_FROM, None)
        return
    setattr(instance, RENAMED_FROM, services.name_before_rename(instance))


@receiver(post_save, sender=ApiKey)
def keep_usage_history_of_renamed_key(sender: Any, instance: ApiKey, **kwargs: Any) -> None:
    # After the key's row has its new name: the usage log's drain reads the key's current name.
    old_name = getattr(instance, RENAMED_FROM, None)
    setattr(instance, RENAMED_FROM, None)
    if old_name:
        usage.rename_client(old_name, instance.name)
