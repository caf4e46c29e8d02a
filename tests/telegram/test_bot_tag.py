"""A group table's message tags a bot account's name (issue 28: a BOT tag
wherever a bot's name shows), in each of the bot's languages."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast

import pytest

from kozyr.telegram.bot import KozyrBot
from kozyr.telegram.tables import Table


def seat(i: int, name: str | None, *, human: bool, bot_account: bool = False) -> dict[str, Any]:
    return {"seat": i, "name": name, "human": human, "bot": None, "bot_account": bot_account}


@pytest.mark.parametrize(
    ("lang", "tag"), [("en", "BOT"), ("ru", "БОТ"), ("zh", "机器人"), ("ja", "BOT")]
)
def test_group_table_tags_bot_accounts(lang: str, tag: str) -> None:
    info: dict[str, Any] = {
        "code": "ABCDEFGHJKMNPQRS",
        "state": "lobby",
        "host_name": "Anna",
        "seats": [seat(0, "Anna", human=True), seat(1, "RoboX", human=True, bot_account=True)],
    }
    fake = cast(Any, SimpleNamespace(deep_link=lambda code: f"https://t.me/kz?startapp={code}"))
    body, _keyboard = KozyrBot._render(fake, info, Table(info["code"], 1, lang, True))
    assert f"2. RoboX [{tag}]" in body
    assert "1. Anna" in body and "Anna [" not in body  # a person: no tag
