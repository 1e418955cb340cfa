"""Catalog management (tools, categories and toolsets by name, validated as everywhere else) and
catalog import: what each endpoint takes and answers."""
from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import models
from drf_spectacular.utils import PolymorphicProxySerializer, extend_schema_serializer
from rest_framework import serializers

from shared.fields import unknown_field_errors
from shared.storable_text import unstorable_character
from toolcatalog import interchange, selectors
from toolcatalog.models import Category, Tool, Toolset
from toolcatalog.services import save_validated

from .schema import CATALOG_NAME_SCHEMA
from .serializers_base import StrictBooleanField, StrictCharField, StrictSerializer


class CatalogNameRelatedField(serializers.SlugRelatedField):
    """Another catalog object, by its name. A name the database cannot hold (a NUL) is no object's:
    a 400 saying so, not the lookup failing in PostgreSQL (a 500)."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, str) and (unstorable := unstorable_character(data)):
            raise serializers.ValidationError(f"No object has this name: it holds {unstorable}.")
        return super().to_internal_value(data)


class ModelValidatingSerializer(serializers.ModelSerializer):
    """Unknown fields rejected; booleans and strings must be JSON booleans and strings (`"yes"` is
    not true, `5` is not a name); model validation (names, JSON Schema, cycles) turned into 400s.
    The read-only fields of the object's own answer are taken and ignored, so that an object read
    with GET can be sent back whole with PUT, as clients (generated ones too) do."""

    # What the published schema's request components add (api/schema.py declare_what_requests_may_hold).
    refuses_unknown_fields = True
    accepts_its_read_only_fields = True
    request_field_schemas: dict[str, dict] = {"name": CATALOG_NAME_SCHEMA}

    serializer_field_mapping = {
        **serializers.ModelSerializer.serializer_field_mapping,
        models.BooleanField: StrictBooleanField,
        models.CharField: StrictCharField,
        models.TextField: StrictCharField,
    }

    def to_internal_value(self, data: Any) -> Any:
        if not isinstance(data, dict):
            raise serializers.ValidationError({"non_field_errors": ["Expected a JSON object."]})
        unknown = unknown_field_errors(data, self.fields)
        if unknown:
            raise serializers.ValidationError(unknown)
        refused = {name: [message] for name, value in data.items()
                   if self.fields[name].read_only and (message := self.read_only_value_error(name, value))}
        if refused:
            raise serializers.ValidationError(refused)
        return super().to_internal_value(data)  # which leaves the read-only fields out

    def read_only_value_error(self, name: str, value: Any) -> str | None:
        """Why a read-only field's value is refused, where ignoring it would mislead the sender
        (None: ignored, as DRF ignores read-only fields; created_at and the like are the server's)."""
        return None

    def _save(self, instance, validated_data: dict) -> Any:
        many = {k: validated_data.pop(k) for k in list(validated_data)
                if isinstance(self.fields[k], serializers.ManyRelatedField)}
        if instance.pk is not None and not self._changes(instance, validated_data, many):
            return instance  # as an import does: an unchanged row is not saved, nor the catalog's version bumped
        for key, value in validated_data.items():
            setattr(instance, key, value)
        try:
            save_validated(instance)
        except DjangoValidationError as exc:
            raise serializers.ValidationError(exc.message_dict if hasattr(exc, "message_dict") else exc.messages) from exc
        for key, value in many.items():
            getattr(instance, key).set(value)
        return instance

    @staticmethod
    def _changes(instance, values: dict, many: dict) -> bool:
        if any(getattr(instance, key) != value for key, value in values.items()):
            return True
        return any({o.pk for o in getattr(instance, key).all()} != {o.pk for o in value} for key, value in many.items())

    def create(self, validated_data: dict) -> Any:
        return self._save(self.Meta.model(), validated_data)  # type: ignore[misc]  # Meta.model is a concrete model

    def update(self, instance, validated_data: dict) -> Any:
        return self._save(instance, validated_data)


class CategorySerializer(ModelValidatingSerializer):
    parent = CatalogNameRelatedField(  # type: ignore[assignment]  # a field, not the base's parent serializer
        slug_field="name", queryset=Category.objects.all(), allow_null=True, required=False)
    embedding_status = serializers.CharField(read_only=True)

    class Meta:
        model = Category
        fields = ["name", "description", "keywords", "workflow_hint", "parent", "enabled", "embedding_status",
                  "created_at", "updated_at"]
        read_only_fields = ["created_at", "updated_at"]
        validators: list = []  # uniqueness is checked by full_clean, with the object named


class ToolSerializer(ModelValidatingSerializer):
    category = CatalogNameRelatedField(slug_field="name", queryset=Category.objects.all(), allow_null=True, required=False)
    related_tools = CatalogNameRelatedField(slug_field="name", queryset=Tool.objects.all(), many=True, required=False)
    hypothetical_queries = serializers.SerializerMethodField(
        help_text="Curated in the admin and brought by imports: a request may only send back the tool's "
                  "own list (another is a 400).")
    embedding_status = serializers.CharField(read_only=True)
    embedding_error = serializers.CharField(read_only=True)

    class Meta:
        model = Tool
        fields = ["name", "description", "category", "parameters", "usage_hint", "related_tools", "core", "enabled",
                  "tags", "source", "hypothetical_queries", "embedding_status", "embedding_error",
                  "created_at", "updated_at"]
        read_only_fields = ["created_at", "updated_at"]
        validators: list = []

    request_field_schemas = {"name": CATALOG_NAME_SCHEMA, "parameters": {"type": "object"}}  # null is refused too

    def validate_name(self, name: str) -> str:
        if message := selectors.provider_name_error(name, self.instance.pk if self.instance else None):
            raise serializers.ValidationError(message)
        return name

    def get_hypothetical_queries(self, tool: Tool) -> list[str]:
        return [q.text for q in tool.hypothetical_queries.all()]

    def read_only_value_error(self, name: str, value: Any) -> str | None:
        # Queries are curated in the admin and come with imports: a client that edits the list and
        # sends it would believe it saved, so only the tool's own list (as GET gives it) is taken.
        if name != "hypothetical_queries":
            return None
        if value == (self.get_hypothetical_queries(self.instance) if self.instance else []):
            return None
        return ("Hypothetical queries are not written through this endpoint (edit them in the admin, or import "
                "the tool with them); send the tool's own list, or leave the field out.")


class ToolsetSerializer(ModelValidatingSerializer):
    tools = CatalogNameRelatedField(slug_field="name", queryset=Tool.objects.all(), many=True, required=False)
    categories = CatalogNameRelatedField(slug_field="name", queryset=Category.objects.all(), many=True, required=False)
    pinned_tools = CatalogNameRelatedField(slug_field="name", queryset=Tool.objects.all(), many=True, required=False,
                                                help_text="Always sent to this toolset's callers, whatever the query.")

    class Meta:
        model = Toolset
        fields = ["name", "description", "tools", "categories", "pinned_tools", "created_at", "updated_at"]
        read_only_fields = ["created_at", "updated_at"]
        validators: list = []


IMPORT_FORMATS = list(interchange.FORMATS)


# Named without "Request": drf-spectacular adds it to request components (COMPONENT_SPLIT_REQUEST).
@extend_schema_serializer(component_name="Import")
class ImportRequestSerializer(StrictSerializer):
    document = serializers.JSONField()
    format = serializers.ChoiceField(choices=IMPORT_FORMATS, required=False, allow_null=True, default=None)
    server_name = StrictCharField(required=False, allow_null=True, max_length=128, default=None)
    category = StrictCharField(required=False, allow_null=True, max_length=128, default=None,
                               help_text="An existing category for the tools the document leaves without one.")
    dry_run = StrictBooleanField(required=False, default=False)


# The schema's name for the body's other form; its schema is api/schema.py IMPORT_DOCUMENT_SCHEMA.
@extend_schema_serializer(component_name="ImportDocument")
class ImportDocumentSerializer(serializers.Serializer):
    """Documentation only: import_options (api/views_catalog.py) takes such a body as it is."""


IMPORT_BODY = PolymorphicProxySerializer(component_name="ImportBody", resource_type_field_name=None,
                                         serializers=[ImportRequestSerializer, ImportDocumentSerializer])


class ImportCountsSerializer(serializers.Serializer):
    created = serializers.IntegerField()
    updated = serializers.IntegerField()
    unchanged = serializers.IntegerField()
    rejected = serializers.IntegerField()
    kept = serializers.IntegerField()


class ImportQuerySerializer(StrictSerializer):
    """The import's options as query parameters, for a body that is the document itself."""

    format = serializers.ChoiceField(choices=IMPORT_FORMATS, required=False, allow_null=True, default=None)
    server_name = serializers.CharField(required=False, allow_null=True, max_length=128, default=None)
    category = serializers.CharField(required=False, allow_null=True, max_length=128, default=None)
    dry_run = serializers.BooleanField(required=False, default=False)  # ?dry_run=true / 1


class ImportReportSerializer(serializers.Serializer):
    format = serializers.CharField()
    dry_run = serializers.BooleanField()
    counts = ImportCountsSerializer()
    created = serializers.ListField(child=serializers.CharField())
    updated = serializers.ListField(child=serializers.CharField())
    unchanged = serializers.ListField(child=serializers.CharField())
    rejected = serializers.ListField(child=serializers.DictField())
    kept = serializers.ListField(child=serializers.DictField(), required=False,
                                 help_text="Objects edited in the admin, whose edited fields the import left alone")
    warnings = serializers.ListField(child=serializers.CharField(), required=False,
                                     help_text="What the importer noticed but did not refuse")
