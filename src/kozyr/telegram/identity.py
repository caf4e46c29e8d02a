"""A Telegram user as a Kozyr player.

The server knows a player by the SHA-256 of their secret token.  A Telegram
player's token is derived from their Telegram user id with a server secret
(``KOZYR_TELEGRAM_SECRET``, else the bot token): ``HMAC_SHA256(secret,
"kozyr-telegram-player:<id>")``.  So every device the user opens the Mini App
on is the same player (same results, same Auto level), nothing secret is
stored, and the bot can act for a user (seat them at a group's table) without
ever having seen their token.  Whoever holds the bot token could forge any
user's launch data anyway, so deriving from it exposes nothing new.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import unicodedata

from kozyr.server.protocol import ProtocolError
from kozyr.server.tables.lobby import check_name, player_key


def player_token(secret: str, telegram_id: int) -> str:
    digest = hmac.new(
        secret.encode(), f"kozyr-telegram-player:{telegram_id}".encode(), hashlib.sha256
    ).digest()
    return "tg" + base64.urlsafe_b64encode(digest).decode().rstrip("=")


def telegram_player_key(secret: str, telegram_id: int) -> str:
    return player_key(player_token(secret, telegram_id))


def display_name(first_name: str, last_name: str | None, telegram_id: int) -> str:
    """The user's first name as a valid Kozyr name (cut to fit), else "tg" and
    the end of their id (a name of emoji-only noise, say, may not pass)."""
    for candidate in (first_name, f"{first_name} {last_name or ''}".strip()):
        text = " ".join(unicodedata.normalize("NFC", candidate).split())
        while text:
            try:
                return check_name(text)
            except ProtocolError:
                text = text[:-1].rstrip()
    return f"tg{telegram_id % 100000}"


def bot_language(code: str | None) -> str:
    """en, ru, zh or ja from a Telegram language code (English otherwise)."""
    base = (code or "").lower().split("-")[0]
    return base if base in ("ru", "zh", "ja") else "en"
