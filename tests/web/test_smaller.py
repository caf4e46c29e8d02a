"""Issue 14, defect 10 ("Smaller"): labels that fit, language-following default
names, bot names, a lock icon without an emoji font, the attack limit explained."""

from __future__ import annotations

from typing import Any

import pytest

from .helpers import wait_screen
from .test_layout_audit import LOCALES, PHONES, VIEWPORTS, audit

#: Every choice of every visible select, measured in the select's own font: its
#: text must fit between the paddings and the arrow (about 20 px in Chromium).
SELECTS_FIT = """() => {
    const out = [];
    const ctx = document.createElement('canvas').getContext('2d');
    for (const s of document.querySelectorAll('select')) {
        if (!s.getClientRects().length) continue;
        const cs = getComputedStyle(s);
        ctx.font = `${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
        const room = s.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) - 20;
        for (const o of s.options) {
            const w = ctx.measureText(o.textContent).width;
            if (w > room) {
                const text = `"${o.textContent}" is ${Math.round(w)} px`;
                out.push(`#${s.id}: ${text} in ${Math.round(room)}`);
            }
        }
    }
    return out;
}"""


@pytest.mark.parametrize("lang", list(LOCALES))
@pytest.mark.parametrize("key", PHONES)
def test_no_select_cuts_its_text_on_phones(open_page: Any, key: str, lang: str) -> None:
    """The choices "Auto (now level 3)", "Everyone for themselves" and the others of
    the start forms and the top bar are shown whole on a phone."""
    page = open_page(VIEWPORTS[key], locale=LOCALES[lang])
    wait_screen(page, "start")
    problems: list[str] = []
    for tab in ("computer", "online", "pnp"):
        page.click(f"#tab-{tab}")
        page.evaluate("document.querySelectorAll('details.rules').forEach((d) => (d.open = true))")
        if tab == "online":
            page.check('#panel-online input[value="private"]')
        problems += [f"{tab}: {p}" for p in page.evaluate(SELECTS_FIT)]
        problems += audit(page, f"{lang}-selects-{tab}", key, scrolls=True)
    assert not problems, "\n".join(problems)
