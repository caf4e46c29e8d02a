"""The browser client's files over HTTP (issue 14, defect 10): compressed, and
cached by the browser (ETag, ``Cache-Control: no-cache`` → 304 on a reload)."""

from __future__ import annotations

import gzip
import urllib.error
import urllib.request
from pathlib import Path

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
