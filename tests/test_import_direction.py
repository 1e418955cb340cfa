"""Imports point one way: each top-level package imports only itself and the packages below it.

    toolrouter (the Django project)
    gateway    (filter gateway, OpenAI/Anthropic proxy)
    api        (REST endpoints, keys, auth, errors)
    routing    (live index, route service, sessions, evaluate)
    usage      (usage log, rollups, dashboard)
    toolcatalog (the catalog app)
    engine     (the selection engine: no Django)
    shared     (Redis client and stamps, one LRU, one vector cache, small helpers)

Every .py file of those packages is parsed with `ast`; an import of a package higher in the
list is a climb and fails this test. The engine and the pure parts of `shared` import no
Django at all (nor anything that needs it).
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ORDER = ["shared", "engine", "toolcatalog", "usage", "routing", "api", "gateway", "toolrouter"]
RANK = {name: rank for rank, name in enumerate(ORDER)}
# The parts of `shared` the engine may use: pure Python, no settings, no Redis.
PURE_SHARED = {"shared", "shared.lru", "shared.memory", "shared.messages", "shared.fields"}
DJANGO_WORLD = {"django", "rest_framework", "drf_spectacular", "celery", "pgvector", "redis"}


def python_files(package: str) -> list[Path]:
    return sorted(p for p in (ROOT / package).rglob("*.py") if "__pycache__" not in p.parts)


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import in the file, nested ones included."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.extend((node.lineno, f"{node.module}.{alias.name}") for alias in node.names)
    return found


def where(path: Path, line: int) -> str:
    return f"{path.relative_to(ROOT)}:{line}"


def climbs(package: str) -> list[str]:
    problems = []
    for path in python_files(package):
        for line, module in imported_modules(path):
            top = module.split(".")[0]
            if top in RANK and RANK[top] > RANK[package]:
                problems.append(f"{where(path, line)} imports {module} ({top} is above {package})")
    return problems


@pytest.mark.parametrize("package", ORDER)
def test_no_package_imports_a_package_above_it(package: str) -> None:
    assert python_files(package), f"{package}/ has no Python files"
    assert climbs(package) == []


def is_pure_shared(module: str) -> bool:
    """`shared`, `shared.lru`, `shared.lru.LRUCache`... but not `shared.redis_client.get_redis`."""
    if module in PURE_SHARED:
        return True
    return any(module.startswith(pure + ".") for pure in PURE_SHARED if pure != "shared")


def pure_modules() -> list[Path]:
    engine = python_files("engine")
    shared = [ROOT / (name.replace(".", "/") + ".py") for name in sorted(PURE_SHARED) if name != "shared"]
    return [*engine, ROOT / "shared" / "__init__.py", *shared]


@pytest.mark.parametrize("path", pure_modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_the_engine_and_the_pure_shared_modules_import_no_django(path: Path) -> None:
    problems = []
    for line, module in imported_modules(path):
        top = module.split(".")[0]
        if top in DJANGO_WORLD:
            problems.append(f"{where(path, line)} imports {module}")
        if top == "shared" and not is_pure_shared(module):
            problems.append(f"{where(path, line)} imports {module}, which is not a pure part of shared")
        if top in RANK and RANK[top] > RANK["engine"]:
            problems.append(f"{where(path, line)} imports {module}")
    assert problems == []


def test_the_checker_sees_a_climb(tmp_path: Path) -> None:
    """The parser finds imports in every form (plain, from, nested in a function)."""
    sample = tmp_path / "sample.py"
    sample.write_text("import api.models\nfrom gateway import views_proxy\n\ndef f():\n    from usage.models import X\n")
    assert [m for _, m in imported_modules(sample)] == ["api.models", "gateway.views_proxy", "usage.models.X"]
