"""The fault table for the closing note: each fault test adds its row as it runs.

Rows are kept by fault name in a JSON file beside the Markdown table, so running one
module updates its row and keeps the others.
"""
from __future__ import annotations

import json

from tests.support.worker import ARTIFACTS

ROWS_FILE = ARTIFACTS / "faults.json"
TABLE_FILE = ARTIFACTS / "faults.md"


def record_fault(fault: str, client_saw: str, lost: str, recovery: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    rows = json.loads(ROWS_FILE.read_text()) if ROWS_FILE.exists() else {}
    rows[fault] = {"client_saw": client_saw, "lost": lost, "recovery": recovery}
    ROWS_FILE.write_text(json.dumps(rows, indent=2))
    lines = ["| fault injected | what the client saw | what was lost | time to recover |",
             "|---|---|---|---|"]
    lines += [f"| {name} | {row['client_saw']} | {row['lost']} | {row['recovery']} |" for name, row in sorted(rows.items())]
    TABLE_FILE.write_text("\n".join(lines) + "\n")
    print(f"\nFAULT | {fault} | {client_saw} | {lost} | {recovery}")
