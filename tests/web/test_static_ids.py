"""The client's pages give every id once: a second element with the same id
makes `document.getElementById` (and every `#id` selector) find the wrong one.
Seen: the public profile's heading took the start screen's name field's id, so
filling the profile page wrote into nothing and the field lost its label."""

from __future__ import annotations

from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

STATIC = Path(__file__).resolve().parents[2] / "src" / "kozyr" / "web" / "static"


class _Ids(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: Counter[str] = Counter()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name == "id" and value:
                self.ids[value] += 1


def test_every_id_in_the_client_pages_is_unique() -> None:
    pages = [STATIC / "index.html", *sorted((STATIC / "howto").glob("*.html"))]
    assert len(pages) > 1
    for page in pages:
        parser = _Ids()
        parser.feed(page.read_text(encoding="utf-8"))
        assert len(parser.ids) > 10 or page.name != "index.html"
        twice = sorted(i for i, n in parser.ids.items() if n > 1)
        assert not twice, f"{page.name}: ids used more than once: {twice}"


def test_every_stylesheet_closes_what_it_opens() -> None:
    """Seen after a merge: a rule lost its closing brace, and every rule after
    it (the game viewer's, the profile's) became part of it, so none applied."""
    import re

    sheets = sorted((STATIC / "css").glob("*.css"))
    assert sheets
    for sheet in sheets:
        text = re.sub(r"/\*.*?\*/", "", sheet.read_text(encoding="utf-8"), flags=re.S)
        depth = 0
        for number, line in enumerate(text.split("\n"), 1):
            depth += line.count("{") - line.count("}")
            assert depth >= 0, f"{sheet.name}: a brace closes nothing near line {number}"
        assert depth == 0, f"{sheet.name}: {depth} rule(s) never closed"
