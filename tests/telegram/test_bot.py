"""The bot against the fake Bot API: /start, rooms and invites, a group's
table played to the end, nudges, and outages of the Bot API."""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

from ..server.harness import Client, http, play_out
from .conftest import TelegramServer, init_data, login
from .fake_api import BOT_USERNAME, FakeBotAPI, group, server_error, too_many, user


def buttons(params: dict[str, Any]) -> list[dict[str, Any]]:
    return [b for row in params["reply_markup"]["inline_keyboard"] for b in row]


def test_setup_calls(tg_server: TelegramServer, fake_api: FakeBotAPI) -> None:
    """On start: no webhook, the commands in four languages, the menu button opens the Mini App."""
    assert fake_api.calls_to("deleteWebhook")
    langs = {c.get("language_code") for c in fake_api.calls_to("setMyCommands")}
    assert langs == {None, "ru", "zh", "ja"}
    ru = next(c for c in fake_api.calls_to("setMyCommands") if c.get("language_code") == "ru")
    assert [c["command"] for c in ru["commands"]] == [
        "start",
        "durak",
        "me",
        "puzzle",
        "nudges",
        "rules",
    ]
    assert ru["commands"][1]["description"] == "открыть стол в этой группе"
    menu = fake_api.calls_to("setChatMenuButton")[-1]["menu_button"]
    assert menu["type"] == "web_app" and menu["web_app"]["url"] == f"{tg_server.url}/"


def test_start_in_two_languages(tg_server: TelegramServer, fake_api: FakeBotAPI) -> None:
    en, ru = user(6001, "Emma", "en-GB"), user(6002, "Иван", "ru")
    fake_api.message(en, "/start")
    fake_api.message(ru, "/start")
    hello = fake_api.wait_sent(6001, "Let's play")
    privet = fake_api.wait_sent(6002, "Сыграем")
    assert "Emma" in hello["text"] and "Иван" in privet["text"]
    labels = [b["text"] for b in buttons(privet)]
    assert labels == ["Играть с компьютером", "Создать комнату для друзей", "Правила"]
    play = buttons(hello)[0]
    assert play["text"] == "Play against the computer"
    assert play["web_app"]["url"] == f"{tg_server.url}/?play=computer"
    assert [b.get("callback_data") for b in buttons(hello)[1:]] == ["new", "rules"]
    # Other languages: Japanese, and English for a language the bot does not speak.
    fake_api.message(user(6003, "Yuki", "ja"), "/start")
    fake_api.message(user(6004, "Hans", "de"), "/start")
    fake_api.wait_sent(6003, "ドゥラーク")
    fake_api.wait_sent(6004, "Let's play")
    # The rules button answers in the same language.
    fake_api.callback(
        ru, "rules", {**privet, "message_id": 1, "date": 0, "chat": {"id": 6002, "type": "private"}}
    )
    fake_api.wait_sent(6002, "козырь")


def test_the_puzzle_of_the_day_opens_in_the_mini_app(
    tg_server: TelegramServer, fake_api: FakeBotAPI
) -> None:
    """/puzzle: in a private chat a button opens the Mini App's puzzles page; in a
    group, the Mini App's deep link with ``startapp=puzzles`` (the page opens
    the puzzle of the day: tests/telegram/test_miniapp.py)."""
    nina = user(6011, "Nina", "ru")
    fake_api.message(nina, "/puzzle")
    private = fake_api.wait_sent(6011, "Задача дня")
    (button,) = buttons(private)
    assert button["text"] == "Решать" and button["web_app"]["url"] == f"{tg_server.url}/puzzles"
    fake_api.message(user(6012, "Emma", "en"), "/puzzle", group(-100611, "Puzzlers"))
    in_group = fake_api.wait_sent(-100611, "puzzle of the day")
    (button,) = buttons(in_group)
    assert button["url"] == f"https://t.me/{BOT_USERNAME}?startapp=puzzles"


def test_create_room_and_invite(tg_server: TelegramServer, fake_api: FakeBotAPI) -> None:
    olga = user(6101, "Olga", "en")
    chat = {"message_id": 1, "date": 0, "chat": {"id": 6101, "type": "private"}}
    fake_api.callback(olga, "new", chat)
    question = fake_api.wait_sent(6101, "How many players")
    assert [b["callback_data"] for b in buttons(question)] == [f"new:{n}" for n in range(2, 7)]
    fake_api.callback(olga, "new:3", chat)
    ready = fake_api.wait_sent(6101, "Your table is ready")
    open_room, share = buttons(ready)
    code = share["switch_inline_query"]
    assert open_room["web_app"]["url"] == f"{tg_server.url}/?room={code}"
    assert f"https://t.me/{BOT_USERNAME}?startapp={code}" in ready["text"]
    status, room = http("GET", f"{tg_server.url}/api/rooms/{code}")
    assert status == 200 and room["host_name"] == "Olga" and len(room["seats"]) == 3
    assert room["visibility"] == "private" and room["move_time"] == 30
    # Sharing it: the inline query offers the invite with a Join button.
    fake_api.inline(olga, code)
    _, answer = fake_api.wait_for(lambda m, p: m == "answerInlineQuery" and p.get("results"))
    (article,) = answer["results"]
    assert "Olga invites you" in article["input_message_content"]["message_text"]
    join = article["reply_markup"]["inline_keyboard"][0][0]
    assert join["url"] == f"https://t.me/{BOT_USERNAME}?startapp={code}"
    # Typing the bot's name with nothing after it offers the user's own table too.
    before = len(fake_api.calls_to("answerInlineQuery"))
    fake_api.inline(olga, "")
    fake_api.wait_for(lambda m, p: m == "answerInlineQuery" and len(fake_api.calls_to(m)) > before)
    assert fake_api.calls_to("answerInlineQuery")[-1]["results"][0]["id"] == code
    # Someone without a table is offered to create one.
    fake_api.inline(user(6102, "Nobody"), "")
    _, empty = fake_api.wait_for(lambda m, p: m == "answerInlineQuery" and p.get("button"))
    assert empty["results"] == [] and empty["button"]["start_parameter"] == "new"
    # The deep link /start CODE answers with a button into the room.
    fake_api.message(user(6103, "Pavel"), f"/start {code}")
    prompt = fake_api.wait_sent(6103, "A table is waiting")
    assert buttons(prompt)[0]["web_app"]["url"] == f"{tg_server.url}/?room={code}"


def test_group_table_filled_nudged_and_finished(
    tg_server: TelegramServer, fake_api: FakeBotAPI
) -> None:
    chat = group(-100777, "Durak club")
    host, guest = user(6201, "Masha", "ru"), user(6202, "Petya", "ru")
    fake_api.message(host, "/durak 2", chat)
    table = fake_api.wait_sent(-100777, "Игроков: 2")
    take, start, open_table = buttons(table)
    code = take["callback_data"][2:]
    assert start["callback_data"] == f"s:{code}"
    assert open_table["url"] == f"https://t.me/{BOT_USERNAME}?startapp={code}"
    message = {"message_id": 999, "date": 0, "chat": chat, "text": table["text"]}
    # Only the host may start it with bots.
    fake_api.callback(guest, f"s:{code}", message)
    fake_api.wait_for(
        lambda m, p: m == "answerCallbackQuery" and "Masha" in p.get("text", ""),
        what="only the host",
    )
    # The guest takes the last seat with one tap: the table is full, the game starts.
    fake_api.callback(guest, f"j:{code}", message)
    fake_api.wait_for(lambda m, p: m == "answerCallbackQuery" and "Место ваше" in p.get("text", ""))
    tg_server.wait_event("game_started", room=code)
    fake_api.wait_for(
        lambda m, p: m == "editMessageText" and "игра идёт" in p.get("text", ""), what="playing"
    )
    # Nobody has the Mini App open: the player to move gets one nudge, and only one.
    nudge = fake_api.wait_for(
        lambda m, p: m == "sendMessage" and "Ваш ход" in p.get("text", ""), what="nudge"
    )[1]
    nudged = int(nudge["chat_id"])
    other = "Petya" if nudged == 6201 else "Masha"
    assert other in nudge["text"]
    back, stop = buttons(nudge)
    assert back["web_app"]["url"] == f"{tg_server.url}/?room={code}"
    assert stop["callback_data"] == "n:off"
    time.sleep(2.0)  # ten looks of the watcher
    assert sum("Ваш ход" in c.get("text", "") for c in fake_api.calls_to("sendMessage")) == 1

    # Both open the Mini App (log in with their launch data) and play to the end.
    clients = []
    for u in (host, guest):
        token = login(tg_server, init_data(u))[1]["token"]
        clients.append((Client(tg_server.ws_url, u["first_name"]), token))

    async def play() -> dict[str, Any]:
        for c, token in clients:
            welcome = await c.connect(token)
            assert welcome["room"] == code
        players = [c for c, _ in clients]
        try:
            await play_out(players, random.Random(7), timeout=120)
        finally:
            for c in players:
                await c.close()
        return players[0].over[-1]

    over = asyncio.run(play())
    durak = over["durak_name"]
    expected = "ничья" if over["durak"] is None else f"<b>{durak}</b> — дурак"
    result = fake_api.wait_sent(-100777, expected)
    assert "Masha" in result["text"]  # the host's table
    # What each person earned (a group's table is casual: candies, no rating).
    for name, seat in (("Masha", 0), ("Petya", 1)):
        won = over["durak"] != seat
        amount = 8 if over["durak"] is None else (15 if won else 5)
        assert f"\n{name}: +{amount} 🍬" in result["text"], result["text"]
    assert "рейтинг" not in result["text"]
    # /me answers with the candies and ratings.
    fake_api.message(host, "/me")
    me = fake_api.wait_sent(6201, "Конфеты")
    mine = 8 if over["durak"] is None else (15 if over["durak"] != 0 else 5)
    assert f"Конфеты: <b>{mine}</b> (сегодня {mine} из 300)" in me["text"]
    assert "Рейтинг, подкидной: <b>1500?</b> (игр: 0)" in me["text"]
    # The Mini App's token shows the same profile, in the user's Telegram language.
    status, profile = http(
        "GET", tg_server.url + "/api/me", headers={"authorization": f"Bearer {clients[0][1]}"}
    )
    assert status == 200 and profile["name"] == "Masha" and profile["lang"] == "ru"
    assert profile["candies"]["balance"] == mine


def test_outage_and_rate_limit_lose_no_update(
    tg_server: TelegramServer, fake_api: FakeBotAPI
) -> None:
    """Connection refused for a while, then a 500 and a 429 with retry_after:
    every update sent meanwhile is answered, once."""
    a, b, c = user(6301, "Alpha"), user(6302, "Bravo"), user(6303, "Charlie")
    fake_api.down()
    try:
        fake_api.message(a, "/start")
        fake_api.message(b, "/rules")
        time.sleep(3.0)  # the bot keeps trying against a closed port
    finally:
        fake_api.up()
    fake_api.wait_sent(6301, "Let's play", timeout=60)
    fake_api.wait_sent(6302, "36 cards", timeout=60)
    # The next calls fail: a 429 (retry after 1 s), then a 500.
    fake_api.fail_next = [too_many(1), server_error()]
    fake_api.message(c, "/start")
    fake_api.wait_sent(6303, "Let's play", timeout=60)
    assert not fake_api.fail_next and len(fake_api.failed_calls) >= 2
    tg_server.wait_event("telegram_retry_after")
    sent = [p for p in fake_api.calls_to("sendMessage") if int(p["chat_id"]) in (6301, 6302, 6303)]
    assert len(sent) == 3  # each update answered exactly once
    assert fake_api.pending() == [] or all(u > 0 for u in fake_api.pending())


def test_nudges_can_be_turned_off_and_on(tg_server: TelegramServer, fake_api: FakeBotAPI) -> None:
    vera = user(6401, "Vera", "en")
    chat = {"message_id": 5, "date": 0, "chat": {"id": 6401, "type": "private"}}
    assert login(tg_server, init_data(vera))[1]["nudges"] is True
    fake_api.callback(vera, "n:off", chat)  # the button under a nudge
    fake_api.wait_for(
        lambda m, p: m == "answerCallbackQuery" and "reminders are off" in p.get("text", "")
    )
    assert login(tg_server, init_data(vera))[1]["nudges"] is False
    # Off: a table for two where Vera is to move sends her nothing.
    fake_api.message(vera, "/durak 2", group(-100888))
    table = fake_api.wait_sent(-100888, "Players: 2")
    code = buttons(table)[0]["callback_data"][2:]
    message = {"message_id": 998, "date": 0, "chat": group(-100888), "text": table["text"]}
    fake_api.callback(user(6402, "Gleb"), f"j:{code}", message)
    tg_server.wait_event("game_started", room=code)

    async def until_vera_moves() -> None:
        """Gleb opens the table and plays until it is Vera's (absent) turn; then waits."""
        gleb = Client(tg_server.ws_url, "Gleb")
        await gleb.connect(login(tg_server, init_data(user(6402, "Gleb")))[1]["token"])
        try:
            frame = await gleb.expect("game")
            while frame["to_move"] == frame["seat"]:
                action = frame["legal"][0]
                await gleb.send({"type": "move", "action": action, "version": frame["version"]})
                frame = await gleb.expect("game", version=frame["version"] + 1)
            await asyncio.sleep(1.5)  # several looks of the watcher at Vera's turn
        finally:
            await gleb.close()

    asyncio.run(until_vera_moves())
    to_vera = [p for p in fake_api.calls_to("sendMessage") if int(p["chat_id"]) == 6401]
    assert not any("Your move" in p["text"] for p in to_vera)
    assert not [e for e in tg_server.events("telegram_nudge") if e.get("player") == "Vera"]
    # /nudges turns them back on.
    fake_api.message(vera, "/nudges")
    fake_api.wait_sent(6401, "reminders are on")
    assert login(tg_server, init_data(vera))[1]["nudges"] is True
