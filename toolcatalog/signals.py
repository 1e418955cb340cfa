"""Every door into the catalog (admin, API, import, shell) ends in a save: react to it here."""
from django.db.models.signals import m2m_changed, post_delete, post_save
from django.dispatch import receiver

from . import services
from .models import Category, HypotheticalQuery, Tool, Toolset


@receiver(post_save, sender=Tool)
def tool_saved(sender, instance: Tool, **kwargs) -> None:
    services.schedule_embedding(instance)
    services.bump_catalog_version()


@receiver(post_save, sender=Category)
def category_saved(sender, instance: Category, **kwargs) -> None:
    services.schedule_embedding(instance)
    services.bump_catalog_version()


@receiver(post_save, sender=HypotheticalQuery)
def query_saved(sender, instance: HypotheticalQuery, **kwargs) -> None:
    services.schedule_embedding(instance)
    services.bump_catalog_version()


@receiver(post_save, sender=Toolset)
@receiver(post_delete, sender=Toolset)
@receiver(post_delete, sender=Tool)
@receiver(post_delete, sender=Category)
@receiver(post_delete, sender=HypotheticalQuery)
@receiver(m2m_changed, sender=Tool.related_tools.through)
@receiver(m2m_changed, sender=Toolset.tools.through)
@receiver(m2m_changed, sender=Toolset.categories.through)
def catalog_changed(sender, **kwargs) -> None:
    services.bump_catalog_version()
