"""Public ids of players: random, stored, never derived from the token (so
nothing turns one back into the token).  Here, below the players layer, because
the store gives every new player one."""

from __future__ import annotations

import secrets

#: Letters of public ids: no 0/o, 1/i/l to misread.
ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"
PUBLIC_ID_LENGTH = 10


def new_public_id() -> str:
    """10 random letters (about 50 bits): short enough for a link, unguessable."""
    return "".join(secrets.choice(ALPHABET) for _ in range(PUBLIC_ID_LENGTH))


def valid_public_id(text: str) -> bool:
    return len(text) == PUBLIC_ID_LENGTH and all(ch in ALPHABET for ch in text)
