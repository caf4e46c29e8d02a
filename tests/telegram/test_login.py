"""Mini App login: launch data (initData) checked as Telegram documents, then
bound to a player whose token is the same on every device."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from urllib.parse import quote, urlencode

import pytest

from kozyr.telegram.initdata import InitDataError, parse_init_data

from ..server.harness import http
from .conftest import TOKEN, TelegramServer, init_data, login
from .fake_api import user

ANNA = {**user(5001, "Анна", "ru"), "last_name": "K", "username": "anna_k"}


def telegram_signed(fields: dict[str, str], token: str) -> str:
    """Signed independently of the code under test, straight from Telegram's docs."""
    check = "\n".join(f"{k}={fields[k]}" for k in sorted(fields))
    secret = hmac.new(b"WebAppData", token.encode(), hashlib.sha256).digest()
    digest = hmac.new(secret, check.encode(), hashlib.sha256).hexdigest()
    return urlencode({**fields, "hash": digest}, quote_via=quote)


def test_the_documented_check_accepts_what_telegram_signs() -> None:
    fields = {
        "query_id": "AAHdF6IQAAAAAN0XohDhrOrc",
        "user": json.dumps({"id": 279058397, "first_name": "Vladislav", "language_code": "ru"}),
        "auth_date": str(int(time.time()) - 5),
        "start_param": "room42",
    }
    data = parse_init_data(telegram_signed(fields, TOKEN), TOKEN, max_age=60)
    assert data.user.id == 279058397
    assert data.user.first_name == "Vladislav"
    assert data.start_param == "room42"
    # Another bot's token did not sign it.
    with pytest.raises(InitDataError) as err:
        parse_init_data(telegram_signed(fields, TOKEN), "1:another", max_age=60)
    assert (err.value.code, err.value.status) == ("forged_init_data", 401)


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        ("", "bad_init_data"),
        ("not a query string", "bad_init_data"),
        ("user=%7B%7D&auth_date=1", "bad_init_data"),  # no hash
        ("a=1&a=2&hash=00", "bad_init_data"),
        ("x" * 5000, "bad_init_data"),
    ],
)
def test_malformed_launch_data_is_refused(raw: str, code: str) -> None:
    with pytest.raises(InitDataError) as err:
        parse_init_data(raw, TOKEN, max_age=60)
    assert err.value.code == code and err.value.status == 400


def test_valid_launch_data_logs_in(tg_server: TelegramServer) -> None:
    status, body = login(tg_server, init_data(ANNA, start_param="abc"))
    assert status == 200, body
    assert body["name"] == "Анна"
    assert body["language"] == "ru"
    assert body["start_param"] == "abc"
    assert body["nudges"] is True
    assert body["auto"] is None
    token = body["token"]
    # The token works on the WebSocket and the HTTP API: it is a real player.
    status, results = http(
        "GET", f"{tg_server.url}/api/me/results", headers={"authorization": f"Bearer {token}"}
    )
    assert status == 200 and results["name"] == "Анна"
    # Another device (new launch data, later) is the same player.
    status, again = login(tg_server, init_data({**ANNA, "first_name": "Аня"}))
    assert status == 200 and again["token"] == token and again["name"] == "Аня"


def test_a_name_chosen_on_the_profile_outlives_the_next_login(tg_server: TelegramServer) -> None:
    vera = user(5004, "Vera")
    token = login(tg_server, init_data(vera))[1]["token"]
    auth = {"authorization": f"Bearer {token}"}
    status, body = http("PATCH", f"{tg_server.url}/api/me", {"name": "TrumpQueen"}, auth)
    assert status == 200 and body["name"] == "TrumpQueen", body
    # Logging in again (even renamed in Telegram) keeps the name the person chose.
    status, again = login(tg_server, init_data({**vera, "first_name": "Verochka"}))
    assert status == 200 and again["name"] == "TrumpQueen"
    assert http("GET", f"{tg_server.url}/api/me", headers=auth)[1]["name"] == "TrumpQueen"


def test_forged_tampered_and_expired_launch_data_are_refused(tg_server: TelegramServer) -> None:
    good = init_data(ANNA)
    # Signed with another bot's token.
    status, body = login(tg_server, init_data(ANNA, token="1:someone-else"))
    assert status == 401 and body["error"]["code"] == "forged_init_data"
    # Changed after signing: another user id in the same signed data.
    tampered = good.replace("5001", "5002")
    assert tampered != good
    status, body = login(tg_server, tampered)
    assert status == 401 and body["error"]["code"] == "forged_init_data"
    # A hash that is not even hex.
    status, body = login(tg_server, good.rsplit("hash=", 1)[0] + "hash=zz")
    assert status == 401 and body["error"]["code"] == "forged_init_data"
    # Older than a day (the default maximum age).
    status, body = login(tg_server, init_data(ANNA, age=86400 + 120))
    assert status == 401 and body["error"]["code"] == "expired_init_data"
    assert "reopen" in body["error"]["message"]
    # Not launch data at all, and not JSON of the right shape.
    status, body = login(tg_server, "hello")
    assert status == 400 and body["error"]["code"] == "bad_init_data"
    status, body = http("POST", f"{tg_server.url}/api/telegram/login", {"initData": good})
    assert status == 400 and body["error"]["code"] == "invalid_message"
    status, body = http("POST", f"{tg_server.url}/api/telegram/login", [1, 2])
    assert status == 400 and body["error"]["code"] == "invalid_message"


def test_the_auto_ladder_is_kept_for_a_telegram_player(tg_server: TelegramServer) -> None:
    boris = user(5003, "Boris")
    token = login(tg_server, init_data(boris))[1]["token"]
    url = f"{tg_server.url}/api/telegram/auto"
    auth = {"authorization": f"Bearer {token}"}
    status, body = http("PUT", url, {"level": 5, "games": 7}, auth)
    assert status == 200 and body == {"level": 5, "games": 7}
    # The next login (another device) brings the ladder back.
    assert login(tg_server, init_data(boris))[1]["auto"] == {"level": 5, "games": 7}
    status, body = http("PUT", url, {"level": 11, "games": 7}, auth)
    assert status == 400 and body["error"]["code"] == "invalid_message"
    status, body = http("PUT", url, {"level": 5, "games": 7}, {"authorization": "Bearer nope"})
    assert status == 404 and body["error"]["code"] == "no_such_player"
    status, body = http("PUT", url, {"level": 5, "games": 7})
    assert status == 401 and body["error"]["code"] == "no_token"


def test_the_command_needs_a_token_and_redis_for_several_processes() -> None:
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if not k.startswith("KOZYR_")}
    cmd = [sys.executable, "-m", "kozyr.cli.main", "telegram"]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "KOZYR_TELEGRAM_TOKEN" in out.stderr
    out = subprocess.run(
        [*cmd, "--workers", "2"],
        env={**env, "KOZYR_TELEGRAM_TOKEN": TOKEN},
        capture_output=True,
        text=True,
        timeout=60,
    )
    # Several processes elect the one that runs the bot through Redis.
    assert out.returncode == 2 and "--workers needs --redis" in out.stderr
