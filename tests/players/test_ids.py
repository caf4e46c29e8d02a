"""The avatar set (one list, every id has its SVG drawing and every drawing an
id), public ids (random, not the token's) and transfer codes as typed."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from kozyr.server.config import STATIC_DIR
from kozyr.server.players.ids import (
    AVATARS,
    new_public_id,
    new_transfer_code,
    normalise_code,
    valid_public_id,
)
from kozyr.server.players.profiles import seal, unseal


def test_at_least_twelve_avatars_each_an_svg_of_ours() -> None:
    files = {p.stem for p in (STATIC_DIR / "avatars").glob("*.svg")}
    assert len(AVATARS) >= 12 and len(set(AVATARS)) == len(AVATARS)
    assert files == set(AVATARS)
    for name in AVATARS:
        root = ET.parse(STATIC_DIR / "avatars" / f"{name}.svg").getroot()
        assert root.tag.endswith("svg") and root.get("viewBox") == "0 0 64 64"


def test_public_ids_are_random_and_checked() -> None:
    ids = {new_public_id() for _ in range(1000)}
    assert len(ids) == 1000 and all(valid_public_id(i) for i in ids)
    assert not valid_public_id("ABCDEFGHJK") and not valid_public_id("abc")


def test_transfer_codes_typed_loosely_and_sealed() -> None:
    code = new_transfer_code()
    assert len(code) == 8 and normalise_code(code.lower()) == code
    assert normalise_code(f"{code[:4]}-{code[4:]}") == code
    assert normalise_code("ABCD0EFG") is None and normalise_code("ABC") is None
    token = "tgAbc_def-123"
    sealed = seal(token, code)
    assert token not in sealed and unseal(sealed, code) == token
    assert unseal(sealed, "ZZZZZZZZ") != token
