"""Public ids, the avatar set and transfer codes: the identifiers a profile shows.

A public id is random and stored (not derived from the token), so nothing can
turn it back into the token.  Avatar ids are the names of the SVG drawings in
``web/static/avatars`` (this tuple is the one list of them; a test checks every
file is here and every id has its file)."""

from __future__ import annotations

import secrets

from ..storage.ids import PUBLIC_ID_LENGTH, new_public_id, valid_public_id

__all__ = [
    "AVATARS", "CODE_LENGTH", "DEFAULT_AVATAR", "PUBLIC_ID_LENGTH", "new_public_id",
    "new_transfer_code", "normalise_code", "valid_public_id",
]  # fmt: skip

#: The built-in avatars, by id (``/avatars/<id>.svg``); the first is the default.
AVATARS: tuple[str, ...] = (
    "fox", "bear", "cat", "owl", "hedgehog", "rabbit", "penguin",
    "frog", "wolf", "panda", "mouse", "cow", "octopus", "sun",
)  # fmt: skip
DEFAULT_AVATAR = AVATARS[0]

#: Letters of transfer codes: no 0/O, 1/I/L to misread.
_CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 8


def new_transfer_code() -> str:
    """8 random capitals and digits (about 40 bits), typed on another device."""
    return "".join(secrets.choice(_CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normalise_code(text: str) -> str | None:
    """A typed code as stored (upper case, spaces and dashes dropped), or None
    if it cannot be one."""
    code = text.replace(" ", "").replace("-", "").upper()
    if len(code) != CODE_LENGTH or any(ch not in _CODE_ALPHABET for ch in code):
        return None
    return code
