"""The admin's "Try a query" page: route a query as an agent would and see why."""
from __future__ import annotations

import markdown
import nh3
from django import forms
from django.contrib import admin
from django.contrib.admin.views.decorators import staff_member_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from engine import FORMATS, MODES, STRATEGIES
from toolcatalog.models import Toolset

from . import services


class TryQueryForm(forms.Form):
    query = forms.CharField(max_length=4000, widget=forms.TextInput(attrs={"size": 80, "autofocus": True}))
    strategy = forms.ChoiceField(choices=[(s, s) for s in STRATEGIES], initial="auto")
    mode = forms.ChoiceField(choices=[(m, m) for m in MODES], initial="top_k")
    limit = forms.IntegerField(min_value=1, max_value=50, initial=5)
    threshold = forms.FloatField(min_value=0.0, max_value=1.0, required=False)
    toolset = forms.ModelChoiceField(queryset=Toolset.objects.all(), required=False, to_field_name="name")
    format = forms.ChoiceField(choices=[(f, f) for f in FORMATS], initial="openai")
    include_core = forms.BooleanField(required=False, initial=True)


def rendered_markdown(text: str) -> str:
    """Workflow hints are Markdown written by curators: render, then keep only harmless HTML."""
    return nh3.clean(markdown.markdown(text or ""))


@staff_member_required
def try_query(request: HttpRequest) -> HttpResponse:
    form = TryQueryForm(request.GET or None)
    context = {**admin.site.each_context(request), "title": "Try a query", "form": form}
    if form.is_bound and form.is_valid():
        data = form.cleaned_data
        # In threshold mode without a threshold, the engine's documented default for the strategy applies.
        asked = services.RouteQuery(
            query=data["query"], strategy=data["strategy"], mode=data["mode"], limit=data["limit"],
            threshold=data["threshold"], toolset=data["toolset"].name if data["toolset"] else None,
            format=data["format"], include_core=data["include_core"], explain=True,
        )
        try:
            outcome = services.route_request(asked, caller=services.Caller(name=f"admin:{request.user.get_username()}"),
                                             endpoint="admin", log=False)
        except services.RouteInputError as exc:
            form.add_error(None, exc.message)
        else:
            context["answer"] = outcome.answer
            context["guidance_html"] = rendered_markdown(outcome.answer["guidance"])
    return render(request, "routing/try_query.html", context)
