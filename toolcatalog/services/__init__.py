"""Writes to the catalog, one module per job:

- `saving`: validate, save and schedule the embedding (every door's save);
- `versions`: the catalog version every change bumps;
- `embedding_schedule` and `embedding_work`: which rows need vectors, and making them;
- `importing` and `exporting`: the catalog in and out, in every interchange format;
- `admin_actions`: the admin's bulk actions.

The names below are what callers use (`from toolcatalog import services`).
"""
from .admin_actions import link_related, request_reembedding, set_category, set_enabled
from .embedding_schedule import (
                                 EMBEDDED_MODELS,
                                 edited_since_embedding_ids,
                                 embedding_batches,
                                 enqueue_embedding,
                                 mark_all_for_reembedding,
                                 requeue_stale_embeddings,
                                 schedule_embedding,
                                 stale_model_ids,
)
from .embedding_work import EmbedReport, embed_objects, record_embedding_error
from .exporting import CatalogExportError, export, tool_definitions
from .importing import (
    CatalogImportError,
    ImportAbandoned,
    ImportLimitError,
    ImportReport,
    import_any,
    import_catalog,
    import_limits,
)
from .saving import (
                                 CURATABLE_CATEGORY_FIELDS,
                                 CURATABLE_TOOL_FIELDS,
                                 mark_curated_edits,
                                 remember_deleted_tool,
                                 rename_in_hints,
                                 save_and_schedule,
                                 save_validated,
)
from .versions import bump_catalog_version

__all__ = [
    "CURATABLE_CATEGORY_FIELDS", "CURATABLE_TOOL_FIELDS", "EMBEDDED_MODELS", "CatalogExportError",
    "CatalogImportError", "EmbedReport", "ImportAbandoned", "ImportLimitError", "ImportReport", "bump_catalog_version",
    "edited_since_embedding_ids", "embed_objects", "embedding_batches",
    "enqueue_embedding", "export", "import_any", "import_catalog", "import_limits", "link_related",
    "mark_all_for_reembedding", "mark_curated_edits", "record_embedding_error", "remember_deleted_tool", "rename_in_hints",
    "request_reembedding", "requeue_stale_embeddings",
    "save_and_schedule", "save_validated", "schedule_embedding", "set_category", "set_enabled", "stale_model_ids",
    "tool_definitions",
]
