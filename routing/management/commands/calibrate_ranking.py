from django.core.management.base import BaseCommand, CommandError

from routing import calibration
from toolcatalog.embeddings import EmbeddingProviderError


class Command(BaseCommand):
    help = ("Measure the ranking weights that suit the live catalog on its own evidence (hypothetical "
            "queries held out, confirmed traffic) and store them; web processes use them from their next request.")

    def handle(self, *args, **options) -> None:
        try:
            row = calibration.calibrate_now()
        except EmbeddingProviderError as exc:
            raise CommandError(f"the embedding provider is unavailable: {exc}") from exc
        verdict = "calibrated" if row.calibrated else "defaults kept"
        self.stdout.write(f"catalog v{row.catalog_version}: {verdict} on {row.evidence.get('used', 0)} queries; "
                          f"recall@5 {row.before.get('recall@5')} -> {row.after.get('recall@5')}; {row.reason}")
        self.stdout.write(f"params: {row.params}")
