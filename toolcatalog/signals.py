"""Every door into the catalog (admin, API, import, shell) ends in a write: invalidate here.

Signals only tell web processes that their routing index is stale (the catalog version, what
changed, and the stamp), and tell the parts above the catalog that a tool was renamed
(`tool_renamed`: API keys pin tools by name). Embeddings are scheduled by the service that saves
(services.saving), not here.
"""
from django.db.models.signals import m2m_changed, post_delete, post_save, pre_save
from django.dispatch import Signal, receiver

from .models import Category, ChangeKind, HypotheticalQuery, Tool, Toolset
from .services.saving import remember_deleted_tool, rename_in_hints
from .services.versions import bump_catalog_version, changes_of, related_tools_changes

_AFTER_M2M_CHANGE = frozenset({"post_add", "post_remove", "post_clear"})

tool_renamed = Signal()  # old_name, new_name: after a saved tool's name changed


@receiver(pre_save, sender=Tool)
def remember_stored_name(sender, instance, update_fields=None, **kwargs) -> None:
    if instance.pk and (update_fields is None or "name" in update_fields):
        instance._stored_name = Tool.objects.filter(pk=instance.pk).values_list("name", flat=True).first()


@receiver(post_save, sender=Tool)
def announce_rename(sender, instance, **kwargs) -> None:
    old_name = instance.__dict__.pop("_stored_name", None)
    if old_name is not None and old_name != instance.name:
        tool_renamed.send(sender=Tool, old_name=old_name, new_name=instance.name)


@receiver(tool_renamed)
def follow_rename_in_hints(sender, old_name: str, new_name: str, **kwargs) -> None:
    rename_in_hints(old_name, new_name)


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


@receiver(post_delete, sender=Tool)
def keep_deleted_name(sender, instance, **kwargs) -> None:
    remember_deleted_tool(instance.name)


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
