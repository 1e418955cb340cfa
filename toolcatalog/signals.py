"""Every door into the catalog (admin, API, import, shell) ends in a write: invalidate here.

Signals only tell web processes that their routing index is stale (the catalog version, what
changed, and the stamp). Embeddings are scheduled by the service that saves (services.saving),
not here.
"""
from django.db.models.signals import m2m_changed, post_delete, post_save
from django.dispatch import receiver

from .models import Category, ChangeKind, HypotheticalQuery, Tool, Toolset
from .services.versions import bump_catalog_version, changes_of, related_tools_changes

_AFTER_M2M_CHANGE = frozenset({"post_add", "post_remove", "post_clear"})


@receiver(post_save, sender=Tool)
@receiver(post_save, sender=Category)
@receiver(post_save, sender=HypotheticalQuery)
@receiver(post_save, sender=Toolset)
@receiver(post_delete, sender=Toolset)
@receiver(post_delete, sender=Tool)
@receiver(post_delete, sender=Category)
@receiver(post_delete, sender=HypotheticalQuery)
def catalog_changed(sender, instance, **kwargs) -> None:
    bump_catalog_version(changes_of(sender, instance))


@receiver(m2m_changed, sender=Tool.related_tools.through)
def related_tools_changed(sender, instance, action, reverse, pk_set, **kwargs) -> None:
    if action in _AFTER_M2M_CHANGE:
        bump_catalog_version(related_tools_changes(instance, reverse, pk_set))


@receiver(m2m_changed, sender=Toolset.tools.through)
@receiver(m2m_changed, sender=Toolset.categories.through)
@receiver(m2m_changed, sender=Toolset.pinned_tools.through)
def toolset_members_changed(sender, action, **kwargs) -> None:
    if action in _AFTER_M2M_CHANGE:
        bump_catalog_version([(ChangeKind.TOOLSET.value, None)])
