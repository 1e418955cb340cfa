"""The admin's forms for tools and categories: a JSON editor for parameters whose faults are placed
by line (and column, or JSON Schema path), and list fields that say how to fill them."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django import forms
from django.conf import settings
from django.contrib.postgres.forms import SimpleArrayField
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError

from . import json_text, selectors, validation
from .models import Category, Tool, Toolset, empty_parameters


@dataclass(frozen=True)
class ParametersFault:
    """Where the parameters text is wrong: for the error message and for the editor's cursor
    (no line when the fault has no one place, e.g. nesting too deep)."""

    line: int | None
    column: int | None
    path: str | None  # the JSON Schema path, for a schema fault
    message: str

    def __str__(self) -> str:
        if self.line is None:
            return self.message
        where = f"Line {self.line}" + (f", column {self.column}" if self.column else "")
        if self.path:
            where += f" (at {self.path})"
        return f"{where}: {self.message}"

    def as_dict(self) -> dict[str, Any]:
        return {"line": self.line, "column": self.column, "path": self.path, "message": str(self)}


def parse_parameters(text: str) -> tuple[Any, json_text.JsonFault | None]:
    """The parameters text as JSON, refused as every JSON door refuses it (and for a repeated key); it
    may nest as deep as a document sent as text to the import page."""
    return json_text.parse(text, max_depth=settings.IMPORT_MAX_DEPTH)


def check_parameters(text: str) -> tuple[Any, ParametersFault | None]:
    """Parse and validate a parameters text as the tool form does (the editor's check as you type);
    the fault, if any, is placed in the text as given. A blank text is what saving it stores."""
    if not text.strip():
        return empty_parameters(), None
    value, fault = parse_parameters(text)
    if fault is not None:
        return None, ParametersFault(fault.line, fault.column, None, fault.message)
    return value, schema_fault(value, text)


def schema_fault(value: Any, text: str | None = None) -> ParametersFault | None:
    """The JSON Schema fault of `value`, placed in `text` (default: `value` pretty-printed, as the form shows it)."""
    problem = validation.parameters_problem(value)
    if problem is None:
        return None
    line, column = json_text.position(json_text.pretty(value) if text is None else text, problem.path)
    return ParametersFault(line, column if text is not None else None, problem.where if problem.path else None,
                           problem.message)


class ParametersEditor(forms.Textarea):
    """A monospace, pretty-printed editor; toolrouter/tool_form.js formats it, checks it as you
    type and puts the cursor on the faulty line."""

    def __init__(self, attrs: dict[str, Any] | None = None) -> None:
        super().__init__({"rows": 18, "spellcheck": "false", "class": "parameters-editor", "autocomplete": "off",
                          **(attrs or {})})


class ParametersField(forms.JSONField):
    widget = ParametersEditor

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("help_text", "A JSON Schema object (type \"object\" with \"properties\"). Checked as you type; "
                                       "\"Format\" pretty-prints it.")
        kwargs.setdefault("initial", empty_parameters)  # what saving a blank text stores, not "null"
        super().__init__(**kwargs)

    def bound_data(self, data: Any, initial: Any) -> Any:
        """A refused text is shown back as typed (forms.JSONField would read it again, as Python's json
        reads it: deep nesting overflows the stack and half a UTF-16 pair cannot be sent in a page)."""
        if self.disabled or data is None:
            return super().bound_data(data, initial)
        value, fault = parse_parameters(data)
        return forms.fields.InvalidJSONInput(data) if fault is not None else value

    def prepare_value(self, value: Any) -> str:
        if isinstance(value, forms.fields.InvalidJSONInput):
            return value
        return json_text.pretty(value)

    def to_python(self, value: Any) -> Any:
        if self.disabled or value in self.empty_values:
            return super().to_python(value)
        if isinstance(value, (list, dict, int, float, forms.fields.JSONString)):
            return value
        parsed, fault = parse_parameters(str(value))
        if fault is not None:  # not JSON the catalog takes; a JSON Schema fault is clean_parameters' to place
            raise forms.ValidationError(str(fault), code="invalid", params={"value": value})
        return parsed


LIST_HELP = "Comma-separated."


class CommaListField(SimpleArrayField):
    """A list field shown as "a, b, c" (SimpleArrayField shows "a,b,c"); items are stripped either way."""

    def prepare_value(self, value: Any) -> Any:
        if isinstance(value, list):
            return ", ".join(str(self.base_field.prepare_value(v)) for v in value)
        return value


def _list_field(field: forms.Field, help_text: str, placeholder: str) -> None:
    """Array fields are comma lists: say so, and give them room."""
    field.help_text = f"{LIST_HELP} {help_text}"
    field.widget.attrs.update({"class": "vLargeTextField list-input", "placeholder": placeholder})


class OneReasonPerFieldForm(forms.ModelForm):
    """A field the form itself refused (too long, a NUL) keeps that reason alone: the model's checks,
    which then see the field's default in its place ('' for the name), would add a second, wrong one
    ("description must not be empty", "tool ''")."""

    def add_error(self, field: str | None, error: Any) -> None:
        if field is None and hasattr(error, "error_dict"):  # the model's (or a form-wide) errors, by field
            error = ValidationError({name: messages for name, messages in error.error_dict.items()
                                     if name == NON_FIELD_ERRORS or name not in self.errors})
        super().add_error(field, error)


class NoLostEditsForm(OneReasonPerFieldForm):
    """Two curators on one object (or a curator and an import): a save made from a page loaded
    before the other change is refused, instead of silently writing the page's old values back
    over it. The page carries the `updated_at` it was loaded with; a form posted without it (a
    script) is not checked."""

    loaded_at = forms.CharField(required=False, widget=forms.HiddenInput)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.instance.pk and not self.is_bound:
            self.initial["loaded_at"] = self.instance.updated_at.isoformat()

    def clean(self) -> dict[str, Any] | None:
        data = super().clean()
        loaded = self.data.get(self.add_prefix("loaded_at"))
        if self.instance.pk and loaded:
            model = type(self.instance)
            stored = model._default_manager.filter(pk=self.instance.pk).values_list("updated_at", flat=True).first()
            if stored is not None and stored.isoformat() != loaded:
                raise ValidationError(
                    f"This {model._meta.verbose_name} was changed after you opened it (at {stored:%H:%M:%S} UTC, by "
                    "another curator or an import). Nothing was saved: open it again to see that change, then make "
                    "yours.", code="changed_meanwhile")
        return data


class ToolAdminForm(NoLostEditsForm):
    parameters = ParametersField(required=False)

    class Meta:
        model = Tool
        fields = ("name", "description", "category", "enabled", "core", "parameters", "usage_hint", "related_tools",
                  "tags", "source")
        field_classes = {"tags": CommaListField}
        help_texts = {
            "category": "Workflow hints (the Markdown guidance returned with a category's tools) live on the category: "
                        "use the pencil to edit this one's.",
        }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if "tags" in self.fields:
            _list_field(self.fields["tags"], "Free labels; MCP annotations as key:value (readOnlyHint:true, "
                                             "title:Get weather) are exported to MCP.", "billing, readOnlyHint:true")
        self.fault: ParametersFault | None = None

    def clean_name(self) -> Any:
        name = self.cleaned_data.get("name")
        if isinstance(name, str) and (message := selectors.provider_name_error(name, self.instance.pk)):
            raise forms.ValidationError(message, code="provider_name_taken")
        return name

    def clean_parameters(self) -> Any:
        value = self.cleaned_data.get("parameters")
        if value is None:
            return empty_parameters()
        fault = schema_fault(value)
        if fault is not None:
            self.fault = fault
            # The editor puts the cursor on the faulty line of what the form shows back (pretty-printed).
            self.fields["parameters"].widget.attrs["data-fault-line"] = str(fault.line)
            raise forms.ValidationError(str(fault), code="invalid_schema")
        return value


class CategoryAdminForm(NoLostEditsForm):
    class Meta:
        model = Category
        fields = ("name", "description", "keywords", "parent", "enabled", "workflow_hint")
        field_classes = {"keywords": CommaListField}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if "keywords" in self.fields:
            _list_field(self.fields["keywords"], "Words that point a query at this category (the hierarchical "
                                                 "strategy's keyword step and the BM25 category field).",
                        "song, album, playlist")


class ToolsetAdminForm(NoLostEditsForm):
    class Meta:
        model = Toolset
        fields = ("name", "description", "tools", "categories", "pinned_tools")


def split_list(text: str) -> list[str]:
    """A comma list as SimpleArrayField reads it (for the definition preview)."""
    return [item.strip() for item in (text or "").split(",") if item.strip()]



def entry_from_form(data: Any) -> tuple[dict[str, Any], ParametersFault | None]:
    """The toolcatalog/v1 entry the tool form's current (unsaved) values describe, for the
    definition preview; the parameters' fault, if any (the entry then has empty parameters)."""
    parameters, fault = check_parameters(data.get("parameters", ""))
    category_id = str(data.get("category") or "")
    category = Category.objects.filter(pk=int(category_id)).values_list("name", flat=True).first() \
        if category_id.isdigit() else None
    queries = [data[key].strip() for key in data
               if key.startswith("hypothetical_queries-") and key.endswith("-text") and data[key].strip()
               and not data.get(key[: -len("text")] + "DELETE")]
    entry = {
        "name": (data.get("name") or "").strip() or "unnamed_tool",
        "description": (data.get("description") or "").strip(),
        "category": category,
        "parameters": parameters if fault is None else empty_parameters(),
        "hypothetical_queries": queries,
        "usage_hint": data.get("usage_hint") or "",
        "related_tools": sorted(Tool.objects.filter(pk__in=[pk for pk in data.getlist("related_tools") if pk.isdigit()])
                                .values_list("name", flat=True)),
        "core": bool(data.get("core")),
        "enabled": bool(data.get("enabled")),
        "tags": split_list(data.get("tags", "")),
        "source": data.get("source") or "",
    }
    return entry, fault
