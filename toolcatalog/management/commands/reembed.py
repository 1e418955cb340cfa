from django.core.management.base import BaseCommand
from tqdm import tqdm

from toolcatalog import services
from toolcatalog.embeddings import EmbeddingProviderError
from toolcatalog.models import EmbeddingStatus


class Command(BaseCommand):
    help = ("Embed every stale, pending or failed row now, in this process, and every row whose text changed "
            "since its vector was made (--all: every row).")

    def add_arguments(self, parser) -> None:
        parser.add_argument("--all", action="store_true", help="re-embed everything, e.g. after a model change")

    def handle(self, *args, all: bool = False, **options) -> None:
        if all:
            services.mark_all_for_reembedding()
        total_embedded = total_failed = total_edited = 0
        for kind, model in services.EMBEDDED_MODELS.items():
            ids = list(model._default_manager.exclude(embedding_status=EmbeddingStatus.READY, embedding_text_hash__gt="")
                       .values_list("pk", flat=True))
            ids += list(services.stale_model_ids(model))
            # A plain .save() leaves an edited row `ready` with its old vector; only its hash tells.
            edited = services.edited_since_embedding_ids(model)
            total_edited += len(edited)
            ids += edited
            with tqdm(total=len(set(ids)), desc=kind, unit="row", disable=not ids) as bar:
                for chunk in services.embedding_batches(kind, ids):
                    try:
                        total_embedded += services.embed_objects(kind, chunk).embedded
                    except EmbeddingProviderError as exc:
                        services.record_embedding_error(kind, chunk, str(exc), final=True)
                        total_failed += len(chunk)
                    bar.update(len(chunk))
        self.stdout.write(f"found {total_edited} edited since embedded; embedded {total_embedded}, failed {total_failed}")
