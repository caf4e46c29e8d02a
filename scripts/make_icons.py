"""Draw the web app's icons (src/kozyr/web/static/icons/*.png) from favicon.svg.

The installable app (manifest.webmanifest) needs PNG icons: 192 and 512 px
with the favicon's rounded square ("any"), and 512 px "maskable" ones whose
felt fills the whole square and whose club stays inside the middle 60 %
(the safe zone a launcher's mask never cuts), plus 180 px for iOS's home
screen. Chromium (Debian's, through Playwright, as the browser tests use it)
renders the SVG; nothing is downloaded. The PNGs are committed: run this again
after changing favicon.svg.

    python scripts/make_icons.py
"""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import sync_playwright

STATIC = Path(__file__).resolve().parents[1] / "src" / "kozyr" / "web" / "static"
CHROMIUM = "/usr/bin/chromium"


def club_and_colours() -> tuple[str, str, str]:
    """The club's shapes, the felt colour and the club's colour from favicon.svg."""
    svg = (STATIC / "favicon.svg").read_text()
    felt = re.search(r'<rect[^>]*fill="(#[0-9a-fA-F]{6})"', svg)
    group = re.search(r'<g fill="(#[0-9a-fA-F]{6})"[^>]*>(.*?)</g>', svg, re.S)
    if not felt or not group:
        raise SystemExit("favicon.svg: expected a filled <rect> and a filled <g> (the club)")
    return group[2], felt[1], group[1]


def icon_svg(size: int, maskable: bool) -> str:
    club, felt, ink = club_and_colours()
    if maskable:  # full-bleed felt, the club within the safe zone
        back = f'<rect width="100" height="100" fill="{felt}"/>'
        scale, shift = 0.5, 25
    else:  # the favicon as it is
        back = f'<rect width="100" height="100" rx="20" fill="{felt}"/>'
        scale, shift = 0.7, 15
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100" '
        f'width="{size}" height="{size}">{back}'
        f'<g fill="{ink}" transform="translate({shift} {shift}) scale({scale})">{club}</g></svg>'
    )


ICONS = {
    "icon-192.png": (192, False),
    "icon-512.png": (512, False),
    "maskable-192.png": (192, True),
    "maskable-512.png": (512, True),
    "apple-touch-icon.png": (180, True),  # iOS rounds the corners itself
}


def main() -> None:
    out = STATIC / "icons"
    out.mkdir(exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox"])
        for name, (size, maskable) in ICONS.items():
            page = browser.new_page(viewport={"width": size, "height": size})
            page.set_content(
                "<style>html,body{margin:0;background:transparent}</style>"
                + icon_svg(size, maskable)
            )
            page.locator("svg").screenshot(path=str(out / name), omit_background=True)
            page.close()
            print(f"{out / name}: {size}x{size}")
        browser.close()


if __name__ == "__main__":
    main()
