"""The browser client's files over HTTP: versioned, compressed, cached.

Every file of ``src/kozyr/web/static`` is read into memory when the server
starts, and the client gets one version: a hash of all of its files. Then:

* ``/v/<version>/<path>`` is the file at ``<path>`` with ``Cache-Control:
  public, max-age=31536000, immutable``: a new version has new names, so a
  browser never needs to ask again. The HTML pages refer to their scripts,
  styles and images by these names (rewritten here), and ES module imports
  inside the folder are relative, so they stay in the same version. A name of
  another version (a page loaded just before the server was updated) still gets
  the current file, but with ``no-cache``, so it is never kept under that name.
* The pages (``/``, ``/howto/<lang>.html``), ``/manifest.webmanifest``,
  ``/sw.js`` and every file under its plain name: ``Cache-Control: no-cache``
  with an ETag (a reload is one 304).
* ``/sw.js`` is the service worker with the version and the list of files to
  cache filled in, so a new version changes its bytes and browsers install it.
* Compression: brotli when the browser accepts it, else gzip; each file is
  compressed once, on first request, at the best level (the files never change
  while the version stays the same).

The client's own pages (``CLIENT_PAGES``: the game viewer, a player's page,
the profile ...) are ``index.html`` with a ``<base href>`` that points back at
the root, so its relative links (and the app's ``fetch("api/...")``) work at
``/game/12`` as at ``/``; the app reads the path and opens that page.

Editing a file while the server runs makes a new version on the next request
for a page (the folder is looked at again at most once a second).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

try:  # the pinned dependency; without it the server still serves gzip
    import brotli
except ImportError:  # pragma: no cover - installed with kozyr
    brotli = None

IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"
SERVICE_WORKER = "sw.js"
MANIFEST = "manifest.webmanifest"
#: Smaller bodies gain nothing from compression (as Starlette's GZipMiddleware).
MIN_COMPRESS = 500
#: How often (seconds) a request for a page looks for edited files.
RESCAN_EVERY = 1.0

MEDIA_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".webmanifest": "application/manifest+json",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".txt": "text/plain; charset=utf-8",
}
COMPRESSIBLE = {".html", ".js", ".css", ".json", ".webmanifest", ".svg", ".txt"}

#: Paths the client itself draws (js/routes.js): each serves ``index.html``.
CLIENT_PAGES = (
    "/game/{id}",
    "/player/{id}",
    "/me",
    "/me/games",
    "/leaderboard",
    "/puzzles",
)

# href="..." and src="..." in the pages (single or double quotes).
_LINK = re.compile(r"""(\s(?:href|src)=)(["'])([^"'#?:]+)\2""")


@dataclass
class Entry:
    """One file as served: its bytes, type, ETag and compressed forms."""

    body: bytes
    media_type: str
    compressible: bool
    tag: str = ""
    _coded: dict[str, bytes] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.tag = hashlib.sha256(self.body).hexdigest()[:20]

    def etag(self, coding: str) -> str:
        return f'"{self.tag}-{coding}"' if coding != "identity" else f'"{self.tag}"'

    def coded(self, coding: str) -> bytes:
        """The body in ``coding`` (compressed once, then kept)."""
        if coding == "identity":
            return self.body
        if coding not in self._coded:
            if coding == "br" and brotli is not None:
                self._coded[coding] = brotli.compress(self.body, quality=11)
            else:
                self._coded[coding] = gzip.compress(self.body, compresslevel=9, mtime=0)
        return self._coded[coding]


def _versioned(path: str) -> bool:
    """Files known by versioned names: all but the pages, the manifest and the worker."""
    return not (path.endswith(".html") or path in (MANIFEST, SERVICE_WORKER))


def _media_type(path: str) -> str:
    return MEDIA_TYPES.get(Path(path).suffix, "application/octet-stream")


class ClientFiles:
    """The static folder in memory, under plain and versioned names."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.version = ""
        self.entries: dict[str, Entry] = {}
        self._signature: tuple[tuple[str, int, int], ...] = ()
        self._checked = 0.0
        self._pages: dict[str, Entry] = {}
        self.load()

    # ------------------------------------------------------------ loading
    def _files(self) -> list[Path]:
        return sorted(
            p
            for p in self.directory.rglob("*")
            if p.is_file() and not any(part.startswith(".") for part in p.parts)
        )

    def _scan(self) -> tuple[tuple[str, int, int], ...]:
        sig = []
        for p in self._files():
            st = p.stat()
            sig.append((p.relative_to(self.directory).as_posix(), st.st_mtime_ns, st.st_size))
        return tuple(sig)

    def load(self) -> None:
        self._signature = self._scan()
        self._checked = time.monotonic()
        raw = {p.relative_to(self.directory).as_posix(): p.read_bytes() for p in self._files()}
        digest = hashlib.sha256()
        for path in sorted(raw):
            digest.update(path.encode() + b"\0" + raw[path] + b"\0")
        self.version = digest.hexdigest()[:12]
        entries = {}
        for path, body in raw.items():
            if path.endswith(".html"):
                body = self._rewrite(path, body, raw)
            elif path == SERVICE_WORKER:
                body = self._fill_worker(body, raw)
            entries[path] = Entry(body, _media_type(path), Path(path).suffix in COMPRESSIBLE)
        self.entries = entries

    def refresh(self) -> None:
        """Load again if a file was edited (looked at most once a second)."""
        now = time.monotonic()
        if now - self._checked < RESCAN_EVERY:
            return
        self._checked = now
        if self._scan() != self._signature:
            self.load()

    def _rewrite(self, page: str, body: bytes, raw: dict[str, bytes]) -> bytes:
        """A page's links to versioned files get the versioned names."""
        folder = Path(page).parent
        up = "../" * len(folder.parts)

        def swap(m: re.Match[str]) -> str:
            target = (folder / m[3]).as_posix()
            parts: list[str] = []
            for part in target.split("/"):  # resolve ../ without touching the disk
                if part == "..":
                    if not parts:
                        return m[0]
                    parts.pop()
                elif part not in ("", "."):
                    parts.append(part)
            path = "/".join(parts)
            if path not in raw or not _versioned(path):
                return m[0]
            return f"{m[1]}{m[2]}{up}v/{self.version}/{path}{m[2]}"

        return _LINK.sub(swap, body.decode("utf-8")).encode("utf-8")

    def _fill_worker(self, body: bytes, raw: dict[str, bytes]) -> bytes:
        """The service worker learns the version and the files to keep."""
        files = ["./"]
        for path in sorted(raw):
            if path in ("index.html", SERVICE_WORKER):
                continue
            if _versioned(path) and not path.startswith("icons/"):
                files.append(f"v/{self.version}/{path}")
            else:
                files.append(path)  # pages, the manifest and its icons: plain names
        text = body.decode("utf-8")
        text = text.replace('"__KOZYR_VERSION__"', json.dumps(self.version))
        text = text.replace('["__KOZYR_FILES__"]', json.dumps(files))
        return text.encode("utf-8")

    # ------------------------------------------------------------ serving
    def lookup(self, path: str) -> tuple[Entry | None, str]:
        """The entry for a request path and its Cache-Control."""
        cache = REVALIDATE
        if path.startswith("v/") and "/" in path[2:]:
            version, _, path = path[2:].partition("/")
            if version == self.version and _versioned(path):
                cache = IMMUTABLE
        if path == "" or path.endswith("/"):
            path += "index.html"
        if path.endswith(".html") or path == SERVICE_WORKER:
            self.refresh()
        return self.entries.get(path), cache

    def page(self, depth: int) -> Entry | None:
        """``index.html`` for a page ``depth`` folders below the root: with a
        ``<base href>`` back to the root (made once per version and depth)."""
        entry, _ = self.lookup("index.html")
        if entry is None:
            return None
        key = f"index.html@{depth}@{entry.tag}"
        if key not in self._pages:
            base = "../" * depth or "./"
            body = entry.body.replace(b"<head>", f'<head>\n  <base href="{base}">'.encode(), 1)
            kept = {k: v for k, v in self._pages.items() if k.endswith(entry.tag)}
            self._pages = {**kept, key: Entry(body, entry.media_type, True)}
        return self._pages[key]

    async def serve_page(self, request: Request) -> Response:
        entry = self.page(request.url.path.count("/") - 1)
        if entry is None:
            raise HTTPException(404)
        return self.respond(request, entry, REVALIDATE)

    async def serve(self, request: Request) -> Response:
        entry, cache = self.lookup(request.path_params.get("path", ""))
        if entry is None:  # the app's handler answers with the JSON error body
            raise HTTPException(404)
        return self.respond(request, entry, cache)

    def respond(self, request: Request, entry: Entry, cache: str) -> Response:
        """``entry`` in the best coding the browser takes, or 304 if it has it."""
        coding = _coding(request.headers.get("accept-encoding", "")) if entry.compressible else None
        if coding and len(entry.body) < MIN_COMPRESS:
            coding = "identity"
        headers: dict[str, Any] = {"cache-control": cache}
        if coding:
            headers["vary"] = "Accept-Encoding"
        coding = coding or "identity"
        headers["etag"] = entry.etag(coding)
        if _matches(request.headers.get("if-none-match", ""), entry.tag):
            return Response(status_code=304, headers=headers)
        if coding != "identity":
            headers["content-encoding"] = coding
        return Response(entry.coded(coding), media_type=entry.media_type, headers=headers)


def _coding(accept: str) -> str:
    """The best coding the browser accepts: br, gzip or identity."""
    accepted = set()
    for item in accept.lower().split(","):
        name, _, params = item.strip().partition(";")
        q = params.strip()
        if q.startswith("q=") and q[2:].strip() in ("0", "0.0", "0.00", "0.000"):
            continue
        accepted.add(name.strip())
    if "br" in accepted and brotli is not None:
        return "br"
    if "gzip" in accepted:
        return "gzip"
    return "identity"


def _matches(if_none_match: str, tag: str) -> bool:
    """Whether the browser's copy (any coding of the same bytes) is current."""
    if not if_none_match:
        return False
    for item in if_none_match.split(","):
        value = item.strip().removeprefix("W/").strip('"')
        if value == "*" or value.split("-")[0] == tag:
            return True
    return False
