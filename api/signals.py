"""What API keys follow in the catalog: a renamed tool stays pinned under its new name."""
from typing import Any

from django.dispatch import receiver

from toolcatalog.signals import tool_renamed

from . import services


@receiver(tool_renamed)
def follow_renamed_tool(sender: Any, old_name: str, new_name: str, **kwargs: Any) -> None:
    services.rename_pinned_tool(old_name, new_name)
