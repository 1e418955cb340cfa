"""The catalog doctor's pure checks: weak descriptions, duplicate names, similar vectors."""
import numpy as np

from toolcatalog.doctor import ToolText, duplicate_names, overlapping_queries, similar_tools, weak_descriptions


def test_weak_descriptions_say_why() -> None:
    found = {w.tool: w.reasons for w in weak_descriptions([
        ToolText("get_weather", "Get weather"),
        ToolText("invoice_data", "Invoice data for the accounting department of the company"),
        ToolText("send_email", "Send an email message to one or more recipients"),
        ToolText("search_flights", "Searches for flights between two airports on a date"),
    ])}
    assert set(found) == {"get_weather", "invoice_data"}
    assert found["get_weather"] == ["very short (2 words)", "repeats the name"]
    assert found["invoice_data"] == ["no action: says what it is, not what it does"]


def test_names_that_differ_only_in_spelling_are_duplicates_across_servers_and_categories() -> None:
    groups = duplicate_names([
        ToolText("github.search_issues", "d", "code"), ToolText("gitlab__searchIssue", "d", "devops"),
        ToolText("issues_search", "d", None), ToolText("search_code", "d", "code"),
    ])
    assert len(groups) == 1
    assert groups[0].tools == ["github.search_issues", "gitlab__searchIssue", "issues_search"]
    assert groups[0].servers == ["github", "gitlab", ""] and groups[0].categories == ["code", "devops", None]


def test_similar_tools_and_overlapping_queries_above_the_threshold() -> None:
    rng = np.random.default_rng(3)
    base = rng.standard_normal((3, 16))
    matrix = np.vstack([base[0], base[0] + 0.05 * rng.standard_normal(16), base[1], base[2]])
    pairs = similar_tools(["a", "b", "c", "d"], matrix, 0.95)
    assert [(p.a, p.b) for p in pairs] == [("a", "b")] and pairs[0].similarity > 0.95
    queries = overlapping_queries(["a", "a", "c"], ["q1", "q2", "q3"], np.vstack([base[0], base[0], base[0]]), 0.99)
    assert [(p.a, p.b, p.detail["query_b"]) for p in queries] == [("a", "c", "q3")]  # same tool's queries don't count
