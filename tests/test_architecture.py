"""The layout's rules (docs/architecture.md): no import circle anywhere in
``src/kozyr``, the import-linter contracts of pyproject.toml (which package may
import which), and a server without Telegram loading no Telegram code."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import grimp
from importlinter.cli import lint_imports

ROOT = Path(__file__).resolve().parent.parent


def import_circles(graph: grimp.ImportGraph) -> list[list[str]]:
    """Every group of modules that import one another in a circle (the
    strongly connected components of more than one module), found with
    Tarjan's algorithm.  (A module "importing itself" is how grimp records a
    package importing its compiled extension, ``kozyr.core._core``: not a circle.)"""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []

    def visit(start: str) -> None:
        # Iterative, so a deep import chain cannot hit the recursion limit.
        work = [(start, iter(sorted(graph.find_modules_directly_imported_by(start))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    imported = sorted(graph.find_modules_directly_imported_by(child))
                    work.append((child, iter(imported)))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    circles.append(sorted(group))

    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    return circles


def test_the_circle_finder_finds_circles() -> None:
    graph = grimp.ImportGraph()
    for importer, imported in [("p.a", "p.b"), ("p.b", "p.c"), ("p.c", "p.a"), ("p.c", "p.d"),
                               ("p.d", "p.e"), ("p.e", "p.d"), ("p.f", "p.a")]:  # fmt: skip
        graph.add_import(importer=importer, imported=imported)
    assert sorted(import_circles(graph)) == [["p.a", "p.b", "p.c"], ["p.d", "p.e"]]


def test_no_import_circle_anywhere_in_src() -> None:
    # Every import counts: at module level, inside functions and under TYPE_CHECKING.
    graph = grimp.build_graph("kozyr", cache_dir=None)
    assert len(graph.modules) > 90  # the whole package was read
    assert import_circles(graph) == []


def test_import_contracts_are_kept() -> None:
    """pyproject.toml's [tool.importlinter] contracts: the packages' layers,
    the engine on its own, and the server's layers (their report is printed)."""
    assert lint_imports(str(ROOT / "pyproject.toml"), no_cache=True, no_logo=True) == 0


def test_a_server_without_telegram_loads_no_telegram_code(tmp_path: Path) -> None:
    """``kozyr serve`` builds its app with the command's extensions: without a
    bot token, neither kozyr.telegram nor aiogram is imported, and the Telegram
    routes still answer ``telegram_off``."""
    script = """
import asyncio, json, sys
from kozyr.cli.serve import extensions
from kozyr.server.config import ServerConfig
from kozyr.server.edge.app import create_app
app = create_app(ServerConfig(db_url=sys.argv[1], bot_workers=0), extensions())
sent = []
async def receive():
    return {"type": "http.request", "body": b'{"init_data": ""}', "more_body": False}
async def send(message):
    sent.append(message)
scope = {"type": "http", "method": "POST", "path": "/api/telegram/login", "headers": [],
         "query_string": b"", "http_version": "1.1", "scheme": "http", "root_path": "",
         "server": ("test", 80), "client": ("test", 1)}
asyncio.run(app(scope, receive, send))
body = json.loads(b"".join(m.get("body", b"") for m in sent[1:]))
loaded = sorted(m for m in sys.modules if m.startswith(("kozyr.telegram", "aiogram")))
print(sent[0]["status"], body["error"]["code"], loaded)
"""
    env = {k: v for k, v in os.environ.items() if not k.startswith("KOZYR_TELEGRAM")}
    out = subprocess.run(
        [sys.executable, "-c", script, f"sqlite:///{tmp_path / 'k.db'}"],
        capture_output=True, text=True, env=env, timeout=60, check=True,
    ).stdout.split()  # fmt: skip
    assert out == ["404", "telegram_off", "[]"]
