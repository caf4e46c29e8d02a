"""Telegram Mini App launch data (``initData``): checked as Telegram documents.

From "Validating data received via the Mini App" (core.telegram.org/bots/webapps):

* the data-check-string is every received field except ``hash``, as
  ``key=<value>`` (values URL-decoded), sorted by key, joined by ``\\n``;
* ``secret_key = HMAC_SHA256(key="WebAppData", msg=bot_token)``;
* the data is genuine when ``hex(HMAC_SHA256(key=secret_key, msg=data_check_string))``
  equals ``hash`` (compared in constant time);
* ``auth_date`` (Unix seconds) tells how old it is: older than ``max_age`` is refused.

:func:`sign_init_data` does the reverse (tests, and tools that need a valid
launch URL for a test token).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlencode

#: Launch data longer than this is refused unread (Telegram's is well under 4 KiB).
MAX_LENGTH = 4096
#: A launch a little in the future is a clock difference, not a forgery.
CLOCK_SKEW = 60.0


class InitDataError(Exception):
    """Launch data refused: ``code`` is the API's error code, ``status`` its HTTP status."""

    def __init__(self, code: str, message: str, status: int) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status


def _bad(message: str) -> InitDataError:
    return InitDataError("bad_init_data", message, 400)


@dataclass(frozen=True)
class TelegramUser:
    id: int
    first_name: str
    last_name: str | None = None
    username: str | None = None
    language_code: str | None = None

    @classmethod
    def from_json(cls, data: Any) -> TelegramUser:
        if not isinstance(data, dict):
            raise _bad("user is not a JSON object")
        uid = data.get("id")
        first = data.get("first_name")
        if not isinstance(uid, int) or isinstance(uid, bool) or uid <= 0 or uid >= 2**63:
            raise _bad("user.id must be a positive integer")
        if not isinstance(first, str):
            raise _bad("user.first_name must be a string")

        def opt(key: str) -> str | None:
            value = data.get(key)
            return value if isinstance(value, str) else None

        return cls(uid, first, opt("last_name"), opt("username"), opt("language_code"))


@dataclass(frozen=True)
class InitData:
    user: TelegramUser
    auth_date: int
    start_param: str | None
    fields: dict[str, str]


def secret_key(bot_token: str) -> bytes:
    return hmac.new(b"WebAppData", bot_token.encode(), hashlib.sha256).digest()


def data_check_string(fields: dict[str, str]) -> str:
    return "\n".join(f"{k}={v}" for k, v in sorted(fields.items()) if k != "hash")


def _signature(fields: dict[str, str], bot_token: str) -> str:
    msg = data_check_string(fields).encode()
    return hmac.new(secret_key(bot_token), msg, hashlib.sha256).hexdigest()


def parse_init_data(raw: str, bot_token: str, max_age: float, now: float | None = None) -> InitData:
    """The checked launch data, or :class:`InitDataError`: ``bad_init_data``
    (400: not launch data at all), ``forged_init_data`` (401: the hash does not
    match, so it was not signed with this bot's token or was changed) or
    ``expired_init_data`` (401: ``auth_date`` older than ``max_age`` seconds)."""
    if not isinstance(raw, str) or not raw:
        raise _bad("init_data is empty")
    if len(raw) > MAX_LENGTH:
        raise _bad(f"init_data is longer than {MAX_LENGTH} characters")
    try:
        pairs = parse_qsl(raw, keep_blank_values=True, strict_parsing=True)
    except ValueError:
        raise _bad("init_data is not a URL-encoded query string") from None
    fields: dict[str, str] = {}
    for key, value in pairs:
        if key in fields:
            raise _bad(f"init_data has the field {key!r} twice")
        fields[key] = value
    given = fields.get("hash")
    if not given:
        raise _bad("init_data has no hash")
    if "auth_date" not in fields or "user" not in fields:
        raise _bad("init_data needs auth_date and user")
    if not hmac.compare_digest(_signature(fields, bot_token), given.lower()):
        raise InitDataError(
            "forged_init_data",
            "init_data was not signed by this bot (or was changed after signing)",
            401,
        )
    try:
        auth_date = int(fields["auth_date"])
    except ValueError:
        raise _bad("auth_date is not a number") from None
    age = (time.time() if now is None else now) - auth_date
    if age > max_age:
        raise InitDataError(
            "expired_init_data",
            f"init_data is {int(age)} s old (at most {int(max_age)} s): reopen the Mini App",
            401,
        )
    if age < -CLOCK_SKEW:
        raise _bad("auth_date is in the future")
    try:
        user_json = json.loads(fields["user"])
    except ValueError:
        raise _bad("user is not JSON") from None
    user = TelegramUser.from_json(user_json)
    return InitData(user, auth_date, fields.get("start_param") or None, fields)


def sign_init_data(fields: dict[str, Any], bot_token: str) -> str:
    """Launch data as Telegram would send it: ``fields`` (``user`` may be a
    dict: it is sent as JSON) plus their ``hash``, URL-encoded."""
    out = {
        k: v if isinstance(v, str) else json.dumps(v, separators=(",", ":"))
        for k, v in fields.items()
    }
    out["hash"] = _signature(out, bot_token)
    return urlencode(out)
