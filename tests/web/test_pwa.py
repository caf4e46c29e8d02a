"""Issue 14, "Feel" and "An installable app": the manifest and its icons, the
service worker that opens the app without a network, the Sound switch, the
sounds and the buzz of a real game, and the how-to-play page in each language."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ..server.harness import ServerProcess
from .conftest import IGNORED_CONSOLE
from .helpers import (
    PHONE,
    assert_box_tappable,
    make_move,
    shot,
    start_vs_computer,
    wait_screen,
    wait_turn,
)

STATIC = Path(__file__).resolve().parents[2] / "src" / "kozyr" / "web" / "static"
LOCALES = {"en": "en-US", "ru": "ru-RU", "zh": "zh-CN", "ja": "ja-JP"}
SMALL_PHONE = {"width": 360, "height": 740}

#: Web Audio as a counter: every node made and every sound started is counted
#: (window.__audio), and navigator.vibrate counts its calls. The game's own
#: code runs unchanged on top of it.
FAKE_AUDIO = """
(() => {
  const audio = { contexts: 0, starts: 0, nodes: 0, buzz: 0 };
  window.__audio = audio;
  const param = () => ({ value: 0, setValueAtTime() {}, exponentialRampToValueAtTime() {},
                         linearRampToValueAtTime() {} });
  const node = (extra = {}) => {
    audio.nodes++;
    return Object.assign({ connect(n) { return n; }, disconnect() {} }, extra);
  };
  const source = () => node({ start() { audio.starts++; }, stop() {}, frequency: param(),
                              type: "sine", buffer: null });
  class FakeAudioContext {
    constructor() { audio.contexts++; this.state = "running"; this.currentTime = 0;
                    this.sampleRate = 8000; this.destination = node(); }
    createGain() { return node({ gain: param() }); }
    createOscillator() { return source(); }
    createBufferSource() { return source(); }
    createBiquadFilter() { return node({ type: "lowpass", Q: param(), frequency: param() }); }
    createBuffer(ch, len) { const d = new Float32Array(len); return { getChannelData: () => d }; }
    resume() { return Promise.resolve(); }
    suspend() { return Promise.resolve(); }
  }
  window.AudioContext = FakeAudioContext;
  window.webkitAudioContext = undefined;
  navigator.vibrate = () => { audio.buzz++; return true; };
})();
"""

NO_AUDIO = "window.AudioContext = undefined; window.webkitAudioContext = undefined;"


def worker_ready(page: Any) -> str:
    """Wait until the service worker controls the page; its cache's name."""
    page.wait_for_function(
        "async () => { await navigator.serviceWorker.ready;"
        " return Boolean(navigator.serviceWorker.controller); }",
        timeout=30_000,
    )
    page.wait_for_function(
        "async () => (await caches.keys()).some((k) => k.startsWith('kozyr-'))", timeout=30_000
    )
    return str(
        page.evaluate("async () => (await caches.keys()).find((k) => k.startsWith('kozyr-'))")
    )


def test_manifest_is_linked_and_its_icons_load(open_page: Any) -> None:
    page = open_page()
    wait_screen(page, "start")
    manifest = page.evaluate(
        """async () => {
            const link = document.querySelector('link[rel=manifest]');
            const res = await fetch(link.href);
            return { type: res.headers.get('content-type'), body: await res.json(), url: res.url };
        }"""
    )
    assert manifest["type"] == "application/manifest+json"
    body = manifest["body"]
    assert body == json.loads((STATIC / "manifest.webmanifest").read_text())
    assert body["display"] == "standalone" and body["short_name"] == "Kozyr"
    assert {i["purpose"] for i in body["icons"]} == {"any", "maskable"}
    # Each icon, loaded as an image next to the manifest, has the size it claims.
    for icon in body["icons"]:
        size = page.evaluate(
            """([src, base]) => new Promise((ok, fail) => {
                const img = new Image();
                img.onload = () => ok(`${img.naturalWidth}x${img.naturalHeight}`);
                img.onerror = () => fail(new Error('icon failed: ' + src));
                img.src = new URL(src, base).href;
            })""",
            [icon["src"], manifest["url"]],
        )
        assert size == icon["sizes"]
    assert page.get_attribute("meta[name=theme-color]", "content") == body["theme_color"]


def test_the_app_opens_without_a_network(browser: Any, server: ServerProcess) -> None:
    """After one visit the service worker keeps the client: a reload with the
    network gone shows the start screen at once (play still needs the server)."""
    ctx = browser.new_context(viewport=PHONE, locale="ru-RU")
    ctx.set_default_timeout(15_000)
    errors: list[str] = []
    page = ctx.new_page()
    page.on("pageerror", lambda exc: errors.append(str(exc)))

    def console_error(m: Any) -> None:
        # Offline, the browser logs each failed WebSocket attempt: that is expected.
        if (
            m.type == "error"
            and "ERR_INTERNET_DISCONNECTED" not in m.text
            and not m.text.startswith(IGNORED_CONSOLE)
        ):
            errors.append(m.text)

    page.on("console", console_error)
    try:
        page.goto(server.url + "/")
        wait_screen(page, "start")
        cache = worker_ready(page)
        script = page.evaluate("document.querySelector('script[type=module]').getAttribute('src')")
        assert cache == f"kozyr-{script.split('/')[1]}"
        ctx.set_offline(True)
        # The server cannot be reached: even the page comes from the cache.
        assert not page.evaluate(
            "fetch('health', {cache: 'no-store'}).then(() => true, () => false)"
        )
        response = page.reload()
        assert response is not None and response.from_service_worker
        wait_screen(page, "start")
        assert page.is_visible("#start-title") and page.is_visible("#panel-computer")
        assert page.inner_text("#start-title") == "Дурак"  # the translation came from the cache
        assert page.is_visible("#sound-toggle") and page.is_visible("#howto-link")
        page.wait_for_selector("#conn-banner:not([hidden])")
        shot(page, "pwa-offline-start-ru")
        # The how-to page is kept too.
        page.click("#howto-link")
        page.wait_for_url("**/howto/ru.html")
        assert page.inner_text("h1") == "Как играть в дурака"
        # Back online, the same page connects again.
        ctx.set_offline(False)
        page.goto(server.url + "/")
        wait_screen(page, "start")
        page.wait_for_function("() => window.kozyr.state.conn && window.kozyr.state.conn.ready")
        assert page.is_hidden("#conn-banner")
    finally:
        ctx.close()
    assert not errors, errors


def test_sound_switch_persists_and_fits_a_phone(open_page: Any) -> None:
    page = open_page(SMALL_PHONE, locale="ru-RU")
    wait_screen(page, "start")
    toggle = page.locator("#sound-toggle")
    # On by default (README.md, "Sound"), named in the page's language.
    assert toggle.get_attribute("aria-pressed") == "true"
    assert toggle.get_attribute("title") == "Звук и вибрация"
    assert page.evaluate("document.querySelector('#sound-toggle').textContent.trim()") == "Звук"
    for target in ("#sound-toggle", "#howto-link"):
        box = page.locator(target).bounding_box()
        assert_box_tappable(box, target, SMALL_PHONE)
        hit = page.evaluate(
            "([sel, x, y]) => document.querySelector(sel)"
            ".contains(document.elementFromPoint(x, y))",
            [target, box["x"] + box["width"] / 2, box["y"] + box["height"] / 2],
        )
        assert hit, f"{target} is covered"
    assert page.evaluate("document.documentElement.scrollWidth") <= SMALL_PHONE["width"]
    toggle.click()
    assert toggle.get_attribute("aria-pressed") == "false"
    assert page.evaluate("localStorage.getItem('kozyr.sound')") == "false"
    shot(page, "pwa-sound-off-ru-360")
    page.reload()
    wait_screen(page, "start")
    assert page.get_attribute("#sound-toggle", "aria-pressed") == "false"
    assert page.evaluate("window.kozyr.sound.on") is False
    page.click("#sound-toggle")
    page.reload()
    wait_screen(page, "start")
    assert page.get_attribute("#sound-toggle", "aria-pressed") == "true"


def test_sounds_and_buzz_of_a_game(open_page: Any) -> None:
    """A real game against a bot: the deal, your turn (with a buzz), a card played;
    each made of Web Audio nodes that were started."""
    page = open_page(PHONE)
    page.add_init_script(FAKE_AUDIO)
    page.reload()
    start_vs_computer(page, bots=1)
    played = set()
    for n in range(1, 40):
        if wait_turn(page) == "over":
            break
        make_move(page, n)
        page.wait_for_timeout(300)
        played = set(page.evaluate("window.kozyr.sound.played"))
        if {"play", "turn", "deal"} <= played and played & {"bito", "take"}:
            break
    assert {"deal", "turn", "play"} <= played, played
    assert played & {"bito", "take"}, played
    audio = page.evaluate("window.__audio")
    assert audio["contexts"] == 1, audio  # one context, made once
    assert audio["starts"] >= 10 and audio["buzz"] >= 1, audio
    # The switch off: silence, and no more buzz.
    page.click("#sound-toggle")
    before = page.evaluate("window.__audio")
    count = len(page.evaluate("window.kozyr.sound.played"))
    for n in range(40, 46):
        if wait_turn(page) == "over":
            break
        make_move(page, n)
    page.wait_for_timeout(500)
    assert page.evaluate("window.__audio") == before
    assert len(page.evaluate("window.kozyr.sound.played")) == count


def test_muted_from_the_start_makes_no_audio(open_page: Any) -> None:
    page = open_page()
    page.add_init_script(FAKE_AUDIO + "localStorage.setItem('kozyr.sound', 'false');")
    page.reload()
    start_vs_computer(page, bots=1)
    assert wait_turn(page) == "turn"
    make_move(page, 1)
    page.wait_for_timeout(500)
    assert page.evaluate("window.__audio") == {"contexts": 0, "starts": 0, "nodes": 0, "buzz": 0}
    assert page.evaluate("window.kozyr.sound.played") == []


def test_no_web_audio_is_no_error(open_page: Any) -> None:
    """A browser without Web Audio plays silently (open_page fails on any error)."""
    page = open_page()
    page.add_init_script(NO_AUDIO)
    page.reload()
    start_vs_computer(page, bots=1)
    for n in range(1, 4):
        if wait_turn(page) == "over":
            break
        make_move(page, n)
    assert page.evaluate("window.kozyr.sound.played") == []


@pytest.mark.parametrize("lang", list(LOCALES))
def test_how_to_play_from_the_start_screen(open_page: Any, lang: str) -> None:
    page = open_page(SMALL_PHONE, locale=LOCALES[lang])
    wait_screen(page, "start")
    strings = json.loads((STATIC / "i18n" / f"{lang}.json").read_text())
    link = page.locator("#howto-link")
    assert link.inner_text() == strings["start"]["howto"]
    link.click()
    page.wait_for_url(f"**/howto/{lang}.html")
    assert page.evaluate("document.documentElement.lang").split("-")[0] == lang
    sections = page.eval_on_selector_all("article h2[id]", "(els) => els.map((e) => e.id)")
    assert sections == [
        "deal",
        "attack",
        "defend",
        "throw",
        "take",
        "refill",
        "transfer",
        "buttons",
        "help",
        "options",
    ]
    text = page.inner_text("article")
    # The buttons are called what the table calls them.
    table = strings["table"]
    for key in ("take", "done", "pass", "transfer", "showTrump", "lead", "unselect", "leave"):
        assert table[key] in text, (lang, key, table[key])
    # The defaults of docs/rules.md.
    assert "36" in text and "6" in text
    assert page.evaluate("document.documentElement.scrollWidth") <= SMALL_PHONE["width"]
    shot(page, f"pwa-howto-{lang}-360")
    # The other languages are one tap away, and the way back leads to the game.
    assert page.locator(".howto-langs a").count() == 4
    page.click(".howto-back")
    wait_screen(page, "start")
