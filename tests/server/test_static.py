"""The browser client's files over HTTP (issue 14, defect 10): compressed
(brotli or gzip), cached by the browser (versioned names for a year, pages
revalidated with ETags → 304), the manifest, icons and the service worker."""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import struct
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import brotli
import pytest

from kozyr.server.edge import static

from .harness import ServerProcess

STATIC = Path(__file__).resolve().parents[2] / "src" / "kozyr" / "web" / "static"


def fetch(url: str, **headers: str) -> tuple[int, dict[str, str], bytes]:
    req = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, {k.lower(): v for k, v in resp.headers.items()}, resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, {k.lower(): v for k, v in exc.headers.items()}, exc.read()


def test_client_files_are_gzipped_and_revalidated(server: ServerProcess) -> None:
    url = server.url + "/js/app.js"
    source = (STATIC / "js" / "app.js").read_bytes()
    status, headers, body = fetch(url, **{"Accept-Encoding": "gzip"})
    assert status == 200
    assert headers["content-encoding"] == "gzip"
    assert "accept-encoding" in headers["vary"].lower()
    assert gzip.decompress(body) == source
    assert len(body) < len(source) / 2
    assert headers["cache-control"] == "no-cache"
    etag = headers["etag"]
    # A browser that does not ask for gzip gets the file as it is.
    status, headers, body = fetch(url)
    assert status == 200 and "content-encoding" not in headers and body == source
    # A reload: the copy is still good.
    status, headers, body = fetch(url, **{"If-None-Match": etag, "Accept-Encoding": "gzip"})
    assert status == 304 and body == b""
    # The page itself too.
    status, headers, body = fetch(server.url + "/", **{"Accept-Encoding": "gzip"})
    assert status == 200 and headers["content-encoding"] == "gzip"
    assert headers["cache-control"] == "no-cache" and "etag" in headers
    assert b"<html" in gzip.decompress(body)


def test_the_api_is_not_cached(server: ServerProcess) -> None:
    status, headers, _ = fetch(server.url + "/health", **{"Accept-Encoding": "gzip"})
    assert status == 200 and "cache-control" not in headers and "etag" not in headers


# ---------------------------------------------------------------- versioned names
VERSIONED = re.compile(r'src="(v/([0-9a-f]{12})/js/app\.js)"')


def page_and_version(server: ServerProcess) -> tuple[str, str]:
    status, _, body = fetch(server.url + "/")
    assert status == 200
    match = VERSIONED.search(body.decode())
    assert match, "index.html refers to its script by a versioned name"
    return body.decode(), match[2]


def client_version() -> str:
    """The version the server computes: a hash of every client file."""
    digest = hashlib.sha256()
    for p in sorted(q for q in STATIC.rglob("*") if q.is_file()):
        rel = p.relative_to(STATIC).as_posix()
        digest.update(rel.encode() + b"\0" + p.read_bytes() + b"\0")
    return digest.hexdigest()[:12]


def test_pages_name_versioned_files_cached_for_a_year(server: ServerProcess) -> None:
    page, version = page_and_version(server)
    assert version == client_version()
    for ref in ("css/app.css", "js/app.js", "favicon.svg", "icons/apple-touch-icon.png"):
        assert f'"v/{version}/{ref}"' in page, ref
    # The manifest keeps its plain name (its start_url and icons are relative to it).
    assert 'href="manifest.webmanifest"' in page
    status, headers, body = fetch(f"{server.url}/v/{version}/js/app.js")
    assert status == 200 and body == (STATIC / "js" / "app.js").read_bytes()
    assert headers["cache-control"] == "public, max-age=31536000, immutable"
    assert headers["content-type"].startswith("text/javascript")
    # ES modules import each other relatively: the same version, cached the same way.
    status, headers, _ = fetch(f"{server.url}/v/{version}/js/i18n.js")
    assert status == 200 and "immutable" in headers["cache-control"]
    status, headers, body = fetch(f"{server.url}/v/{version}/i18n/ru.json")
    assert status == 200 and "immutable" in headers["cache-control"]
    assert json.loads(body)["start"]["howto"]
    # A page links into its version from a folder too.
    status, _, body = fetch(server.url + "/howto/ja.html")
    assert status == 200 and f'href="../v/{version}/css/howto.css"'.encode() in body
    # The page itself is revalidated: no-cache with an ETag, then 304.
    status, headers, _ = fetch(server.url + "/")
    assert headers["cache-control"] == "no-cache"
    status, again, body = fetch(server.url + "/", **{"If-None-Match": headers["etag"]})
    assert status == 304 and body == b"" and again["etag"] == headers["etag"]


def test_another_versions_name_is_served_but_never_kept(server: ServerProcess) -> None:
    status, headers, body = fetch(server.url + "/v/000000000000/js/app.js")
    assert status == 200 and body == (STATIC / "js" / "app.js").read_bytes()
    assert headers["cache-control"] == "no-cache"
    # The worker and the pages never get a versioned (immutable) name.
    _, version = page_and_version(server)
    status, headers, _ = fetch(f"{server.url}/v/{version}/sw.js")
    assert headers["cache-control"] == "no-cache"


def test_brotli_when_accepted_else_gzip(server: ServerProcess) -> None:
    _, version = page_and_version(server)
    url = f"{server.url}/v/{version}/css/app.css"
    source = (STATIC / "css" / "app.css").read_bytes()
    status, br, body = fetch(url, **{"Accept-Encoding": "gzip, deflate, br"})
    assert status == 200 and br["content-encoding"] == "br"
    assert brotli.decompress(body) == source
    brotli_size = len(body)
    status, gz, body = fetch(url, **{"Accept-Encoding": "gzip, br;q=0"})
    assert status == 200 and gz["content-encoding"] == "gzip"
    assert gzip.decompress(body) == source
    assert brotli_size < len(body) < len(source) / 3
    assert br["vary"] == gz["vary"] == "Accept-Encoding"
    # Each coding has its own ETag; any of them says the copy is current.
    assert br["etag"] != gz["etag"]
    for etag in (br["etag"], gz["etag"]):
        status, _, body = fetch(url, **{"If-None-Match": etag, "Accept-Encoding": "br"})
        assert status == 304 and body == b""
    status, _, _ = fetch(url, **{"If-None-Match": '"0123456789"', "Accept-Encoding": "br"})
    assert status == 200
    # Images are already compressed; small files are not worth it.
    status, headers, body = fetch(server.url + "/icons/icon-192.png", **{"Accept-Encoding": "br"})
    assert status == 200 and "content-encoding" not in headers and body[:4] == b"\x89PNG"


def test_manifest_and_icons(server: ServerProcess) -> None:
    status, headers, body = fetch(server.url + "/manifest.webmanifest")
    assert status == 200
    assert headers["content-type"] == "application/manifest+json"
    assert headers["cache-control"] == "no-cache" and "etag" in headers
    manifest = json.loads(body)
    assert manifest["display"] == "standalone" and manifest["start_url"] == "./"
    assert manifest["name"] and manifest["short_name"]
    assert manifest["theme_color"].startswith("#") and manifest["background_color"].startswith("#")
    sizes = {(i["sizes"], i["purpose"]) for i in manifest["icons"]}
    assert {("192x192", "any"), ("512x512", "any"), ("512x512", "maskable")} <= sizes
    for icon in manifest["icons"]:
        status, headers, png = fetch(f"{server.url}/{icon['src']}")
        assert status == 200 and headers["content-type"] == "image/png"
        width, height = struct.unpack(">II", png[16:24])  # the PNG's IHDR
        assert f"{width}x{height}" == icon["sizes"]


def test_service_worker_scope_version_and_files(server: ServerProcess) -> None:
    _, version = page_and_version(server)
    status, headers, body = fetch(server.url + "/sw.js")
    assert status == 200 and headers["content-type"].startswith("text/javascript")
    # At the root, so its scope is the whole client; always asked for again.
    assert headers["cache-control"] == "no-cache"
    text = body.decode()
    assert f'const VERSION = "{version}";' in text
    listed = re.search(r"const FILES = (\[.*?\]);", text)
    assert listed, "sw.js names the files it keeps"
    files = json.loads(listed[1])
    assert "./" in files and f"v/{version}/js/app.js" in files and "howto/zh.html" in files
    assert "manifest.webmanifest" in files and "icons/maskable-512.png" in files
    assert not any(f.startswith(("api", "ws", "health")) for f in files)
    for f in files:  # every file the worker keeps is there
        status, _, _ = fetch(urllib.parse.urljoin(server.url + "/", f))
        assert status == 200, f


def test_unknown_paths_and_methods(server: ServerProcess) -> None:
    for path in (
        "/nope.js",
        "/v/",
        "/../pyproject.toml",
        "/js/../../server/app.py",
        "/v/x/..%2f..%2fREADME.md",
    ):
        status, _, body = fetch(server.url + path)
        assert status == 404, path
        assert json.loads(body)["error"]["code"] == "not_found", path
    req = urllib.request.Request(server.url + "/js/app.js", data=b"x", method="POST")
    try:
        urllib.request.urlopen(req, timeout=10)
        raise AssertionError("POST to a client file was accepted")
    except urllib.error.HTTPError as exc:
        assert exc.code == 405 and "GET" in exc.headers["allow"]
        assert json.loads(exc.read())["error"]["code"] == "method_not_allowed"


def test_an_edited_file_makes_a_new_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Editing the client while the server runs: the next page names a new version."""
    (tmp_path / "js").mkdir()
    (tmp_path / "index.html").write_text('<script type="module" src="js/app.js"></script>')
    (tmp_path / "js" / "app.js").write_text("export const a = 1;")
    files = static.ClientFiles(tmp_path)
    first = files.version
    assert f'src="v/{first}/js/app.js"'.encode() in files.entries["index.html"].body
    monkeypatch.setattr(static, "RESCAN_EVERY", 0.0)
    (tmp_path / "js" / "app.js").write_text("export const a = 2;")
    entry, cache = files.lookup("")
    assert files.version != first and entry is not None and cache == "no-cache"
    assert f'src="v/{files.version}/js/app.js"'.encode() in entry.body
    assert files.lookup(f"v/{files.version}/js/app.js")[1] == static.IMMUTABLE
    assert files.lookup(f"v/{first}/js/app.js")[1] == "no-cache"
