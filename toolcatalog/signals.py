"""Every door into the catalog (admin, API, import, shell) ends in a write: invalidate here.

Signals only tell web processes that their routing index is stale (the catalog version and its
stamp). Embeddings are scheduled by the service that saves (services.saving), not here.
"""
from django.db.models.signals import m2m_changed, post_delete, post_save
from django.dispatch import receiver

from .models import Category, HypotheticalQuery, Tool, Toolset
from .services.versions import bump_catalog_version


@receiver(post_save, sender=Tool)
@receiver(post_save, sender=Category)
@receiver(post_save, sender=HypotheticalQuery)
@receiver(post_save, sender=Toolset)
@receiver(post_delete, sender=Toolset)
@receiver(post_delete, sender=Tool)
@receiver(post_delete, sender=Category)
@receiver(post_delete, sender=HypotheticalQuery)
@receiver(m2m_changed, sender=Tool.related_tools.through)
@receiver(m2m_changed, sender=Toolset.tools.through)
@receiver(m2m_changed, sender=Toolset.categories.through)
@receiver(m2m_changed, sender=Toolset.pinned_tools.through)
def catalog_changed(sender, **kwargs) -> None:
    bump_catalog_version()
