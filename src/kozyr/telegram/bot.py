"""The Telegram bot, run by ``kozyr telegram`` in the game server's event loop.

Why in-process (and not a separate client of the HTTP/WebSocket API): the bot
seats people at a group's table with one tap, starts a table when it fills,
posts results and notices whose Mini App is closed when it is their turn.  All
of that is the hub's live state; a separate process would need a new API for
each of these.  In the server's loop it reads ``hub.rooms`` directly and calls
the same methods the WebSocket handlers call, so every rule (seats, host, the
engine) is checked in one place.

Long polling (aiogram's ``Dispatcher.start_polling``): it keeps the offset of
the last update it handled and survives outages by retrying with back-off.
Every Bot API call goes through :class:`Retry`: a 429 waits ``retry_after`` and
tries again, a connection error or a 5xx retries with back-off, so a reply is
not lost while the Bot API is unreachable for a while.

It follows the rooms' events (the server's event stream: every room of a
cluster, wherever its owner is): it starts a bot-made table when every seat is
taken, edits a group's table message when its seats change, posts each finished
game's result in the group, and sends "your turn" nudges (one per absence: a
player who does not come back is not reminded again until they have been back
at the table).  Everything it does in a room goes through the hub
(``Hub.act``: the room's own checks, where the room lives), and its tables are
in the database (:mod:`.tables`).

In a cluster exactly one process runs the bot (:mod:`.server` holds the role
through the server's election); a Telegram update is handled once, even when
the bot moves to another process before Telegram heard the update was read
(``Coordinator.first_time``).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from html import escape
from typing import Any

from aiogram import Bot, Dispatcher, F, Router
from aiogram.client.default import DefaultBotProperties
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.session.middlewares.base import (
    BaseRequestMiddleware,
    NextRequestMiddlewareType,
)
from aiogram.client.telegram import TelegramAPIServer
from aiogram.enums import ParseMode
from aiogram.exceptions import (
    TelegramAPIError,
    TelegramBadRequest,
    TelegramNetworkError,
    TelegramRetryAfter,
    TelegramServerError,
)
from aiogram.filters import Command, CommandObject, CommandStart
from aiogram.methods import GetUpdates, TelegramMethod
from aiogram.methods.base import Response, TelegramType
from aiogram.types import (
    BotCommand,
    BotCommandScopeDefault,
    CallbackQuery,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InlineQuery,
    InlineQueryResultArticle,
    InlineQueryResultsButton,
    InputTextMessageContent,
    MenuButtonWebApp,
    Message,
    TelegramObject,
    Update,
    User,
    WebAppInfo,
)

from kozyr.server import protocol as p
from kozyr.server.players.profiles import my_profile
from kozyr.server.tables.lobby import Hub
from kozyr.server.tables.rooms import Player
from kozyr.server.telemetry import log

from . import tables
from .identity import bot_language, telegram_player_key
from .initdata import TelegramUser
from .login import bind_user, set_nudges, user_by_player
from .settings import TelegramSettings
from .tables import Table
from .texts import TEXTS, text

#: Seats of a table when /durak names none.
DEFAULT_SEATS = 4
#: How long an update's id is remembered as handled (Telegram keeps unread
#: updates for a day).
UPDATE_TTL = 86400.0
#: The answers of ``Hub.act`` and the text each shows a person.
SEAT_ANSWERS = {
    "seated": "seated",
    "already_seated": "already_seated",
    "not_lobby": "table_started",
    "full": "table_full",
    "playing": "busy",
}


class Retry(BaseRequestMiddleware):
    """Every Bot API call: wait out a 429 (``retry_after``) and retry connection
    errors and 5xx answers with back-off, up to ``attempts`` tries.  getUpdates
    is only retried on 429: the dispatcher retries its other failures forever."""

    def __init__(self, attempts: int = 10, max_wait: float = 60.0) -> None:
        self.attempts = attempts
        self.max_wait = max_wait

    async def __call__(
        self,
        make_request: NextRequestMiddlewareType[TelegramType],
        bot: Bot,
        method: TelegramMethod[TelegramType],
    ) -> Response[TelegramType]:
        delay = 0.5
        for attempt in range(1, self.attempts + 1):
            try:
                return await make_request(bot, method)
            except TelegramRetryAfter as exc:
                if attempt == self.attempts:
                    raise
                wait = min(float(exc.retry_after), self.max_wait)
                log.warning("telegram_retry_after", method=method.__api_method__, wait=wait)
                await asyncio.sleep(wait)
            except (TelegramNetworkError, TelegramServerError) as exc:
                if isinstance(method, GetUpdates) or attempt == self.attempts:
                    raise
                log.warning(
                    "telegram_retry", method=method.__api_method__, error=str(exc), wait=delay
                )
                await asyncio.sleep(delay)
                delay = min(delay * 2, 10.0)
        raise AssertionError("unreachable")  # pragma: no cover


def tg_user(user: User) -> TelegramUser:
    return TelegramUser(user.id, user.first_name, user.last_name, user.username, user.language_code)


class KozyrBot:
    def __init__(self, hub: Hub, settings: TelegramSettings) -> None:
        config = hub.config
        self.hub = hub
        self.settings = settings
        self.public = settings.public_url or f"http://{config.host}:{config.port}"
        self.poll = settings.poll
        session = AiohttpSession(api=TelegramAPIServer.from_base(settings.api))
        session.middleware(Retry())
        self.bot = Bot(
            settings.token,
            session=session,
            default=DefaultBotProperties(parse_mode=ParseMode.HTML),
        )
        self.dp = Dispatcher()
        self.dp.update.outer_middleware(self._once)
        self.dp.include_router(self._router())
        self.username = ""
        self.tables: dict[str, Table] = {}
        #: Players nudged and not yet back at a table (player keys).
        self.nudged: set[str] = set()
        self._task: asyncio.Task[None] | None = None

    # ------------------------------------------------------------ running
    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name="telegram-bot")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        await self.bot.session.close()
        log.event("telegram_stopped")

    async def _run(self) -> None:
        delay = 1.0
        while True:  # the Bot API (or the database) may be down when the server starts
            try:
                await self._setup()
                self.tables = await tables.load_all(self.hub)
                break
            except Exception as exc:
                log.warning("telegram_setup_failed", error=repr(exc), wait=delay)
                await asyncio.sleep(delay)
                delay = min(delay * 2, 30.0)
        watcher = asyncio.get_running_loop().create_task(self._watch(), name="telegram-watch")
        try:
            await self.dp.start_polling(
                self.bot, handle_signals=False, close_bot_session=False, polling_timeout=10
            )
        finally:
            watcher.cancel()

    async def _once(
        self,
        handler: Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]],
        event: TelegramObject,
        data: dict[str, Any],
    ) -> Any:
        """Handle each update once, across the processes that may run the bot:
        one that took over gets again the updates Telegram had not heard were read."""
        if isinstance(event, Update):
            if not await self.hub.coord.first_time(f"tg:update:{event.update_id}", UPDATE_TTL):
                log.event("telegram_update_skipped", update=event.update_id)
                return None
            log.event("telegram_update", update=event.update_id)
        return await handler(event, data)

    async def _setup(self) -> None:
        me = await self.bot.get_me()
        self.username = me.username or ""
        await self.bot.delete_webhook(drop_pending_updates=False)
        for lang in TEXTS:
            commands = [
                BotCommand(command=c, description=text(lang, f"cmd_{c}"))
                for c in ("start", "durak", "me", "puzzle", "nudges", "rules")
            ]
            await self.bot.set_my_commands(
                commands,
                scope=BotCommandScopeDefault(),
                language_code=None if lang == "en" else lang,
            )
        await self.bot.set_chat_menu_button(
            menu_button=MenuButtonWebApp(
                text=text("en", "menu"), web_app=WebAppInfo(url=f"{self.public}/")
            )
        )
        log.event("telegram_started", bot=self.username, public_url=self.public)

    # ------------------------------------------------------------ links
    def room_url(self, code: str) -> str:
        return f"{self.public}/?room={code}"

    def deep_link(self, code: str) -> str:
        """Opens the bot's Mini App straight into the room (any chat, any device)."""
        return f"https://t.me/{self.username}?startapp={code}"

    def _button_web(self, label: str, url: str) -> InlineKeyboardButton:
        return InlineKeyboardButton(text=label, web_app=WebAppInfo(url=url))

    # ------------------------------------------------------------ handlers
    def _router(self) -> Router:
        r = Router(name="kozyr")
        r.message.register(self.on_start, CommandStart())
        r.message.register(self.on_durak, Command("durak"))
        r.message.register(self.on_nudges, Command("nudges"))
        r.message.register(self.on_me, Command("me"))
        r.message.register(self.on_puzzle, Command("puzzle", "puzzles"))
        r.message.register(self.on_rules, Command("rules", "help"))
        r.callback_query.register(self.on_rules_button, F.data == "rules")
        r.callback_query.register(self.on_new_button, F.data == "new")
        r.callback_query.register(self.on_seats_button, F.data.startswith("new:"))
        r.callback_query.register(self.on_join_button, F.data.startswith("j:"))
        r.callback_query.register(self.on_start_button, F.data.startswith("s:"))
        r.callback_query.register(self.on_nudges_button, F.data == "n:off")
        r.inline_query.register(self.on_inline)
        return r

    async def _bind(self, user: User | None) -> tuple[Player, str]:
        assert user is not None
        pl, _token, row = await bind_user(self.hub, self.settings, tg_user(user))
        return pl, str(row["lang"])

    async def on_start(self, message: Message, command: CommandObject) -> None:
        pl, lang = await self._bind(message.from_user)
        arg = (command.args or "").strip()
        chat = message.chat.id
        private = message.chat.type == "private"
        if arg == "new":
            await self._ask_seats(chat, lang)
            return
        if arg:
            if await self.hub.room_info(arg) is None:
                await self.bot.send_message(chat, text(lang, "no_room"))
                return
            button = (
                self._button_web(text(lang, "join"), self.room_url(arg))
                if private
                else InlineKeyboardButton(text=text(lang, "join"), url=self.deep_link(arg))
            )
            await self.bot.send_message(
                chat,
                text(lang, "join_prompt"),
                reply_markup=InlineKeyboardMarkup(inline_keyboard=[[button]]),
            )
            return
        rows: list[list[InlineKeyboardButton]] = []
        if private:
            url = f"{self.public}/?play=computer"
            rows.append([self._button_web(text(lang, "play_computer"), url)])
        rows.append([InlineKeyboardButton(text=text(lang, "create_room"), callback_data="new")])
        rows.append([InlineKeyboardButton(text=text(lang, "rules"), callback_data="rules")])
        await self.bot.send_message(
            chat,
            text(lang, "welcome", name=escape(pl.name)),
            reply_markup=InlineKeyboardMarkup(inline_keyboard=rows),
        )

    async def on_me(self, message: Message) -> None:
        """``/me``: the user's candies and ratings (their profile, as the Mini App
        shows it)."""
        pl, lang = await self._bind(message.from_user)
        cap = self.hub.config.candy_cap
        found = await self.hub.store.call(lambda conn: my_profile(conn, pl.key, cap))
        if found is None:
            return
        candies, ratings = found["candies"], found["ratings"]

        def shown(variant: str) -> str:
            r = ratings[variant]
            return f"{r['rating']}{'?' if r['provisional'] else ''}"

        body = text(
            lang, "me", name=escape(str(found["name"])), balance=candies["balance"],
            today=candies["today"], cap=candies["daily_cap"], podkidnoy=shown("podkidnoy"),
            podkidnoy_games=ratings["podkidnoy"]["games"], perevodnoy=shown("perevodnoy"),
            perevodnoy_games=ratings["perevodnoy"]["games"],
        )  # fmt: skip
        await self.bot.send_message(message.chat.id, body)

    async def on_puzzle(self, message: Message) -> None:
        """``/puzzle``: a button to the puzzle of the day in the Mini App (in a
        group, the Mini App's deep link ``startapp=puzzles``, as for rooms)."""
        lang = bot_language(message.from_user.language_code if message.from_user else None)
        label = text(lang, "puzzle_open")
        button = (
            self._button_web(label, f"{self.public}/puzzles")
            if message.chat.type == "private"
            else InlineKeyboardButton(text=label, url=self.deep_link("puzzles"))
        )
        await self.bot.send_message(
            message.chat.id,
            text(lang, "puzzle"),
            reply_markup=InlineKeyboardMarkup(inline_keyboard=[[button]]),
        )

    async def on_rules(self, message: Message) -> None:
        lang = bot_language(message.from_user.language_code if message.from_user else None)
        await self.bot.send_message(message.chat.id, text(lang, "rules_text"))

    async def on_rules_button(self, query: CallbackQuery) -> None:
        lang = bot_language(query.from_user.language_code)
        await query.answer()
        if query.message is not None:
            await self.bot.send_message(query.message.chat.id, text(lang, "rules_text"))

    async def _ask_seats(self, chat: int, lang: str) -> None:
        row = [InlineKeyboardButton(text=str(n), callback_data=f"new:{n}") for n in range(2, 7)]
        await self.bot.send_message(
            chat,
            text(lang, "seats_question"),
            reply_markup=InlineKeyboardMarkup(inline_keyboard=[row]),
        )

    async def on_new_button(self, query: CallbackQuery) -> None:
        lang = bot_language(query.from_user.language_code)
        await query.answer()
        await self._ask_seats(query.from_user.id, lang)

    async def on_seats_button(self, query: CallbackQuery) -> None:
        seats = _seats(str(query.data)[4:])
        pl, lang = await self._bind(query.from_user)
        code = await self._open(pl, seats)
        if code is None:
            await query.answer(text(lang, "busy"), show_alert=True)
            return
        await query.answer()
        chat = query.from_user.id
        table = self.tables[code] = Table(code, chat_id=chat, lang=lang, group=False)
        await tables.add(self.hub, table)
        markup = InlineKeyboardMarkup(
            inline_keyboard=[
                [self._button_web(text(lang, "open_room"), self.room_url(code))],
                [InlineKeyboardButton(text=text(lang, "share_invite"), switch_inline_query=code)],
            ]
        )
        link = self.deep_link(code)
        await self.bot.send_message(
            chat, text(lang, "room_ready", n=seats, link=escape(link)), reply_markup=markup
        )
        log.event("telegram_room", room=code, seats=seats, group=False)

    async def _leave_others(self, pl: Player, keep: str | None = None) -> bool:
        """``pl`` leaves the room they are in (anywhere in a cluster) for another
        table; False (and they stay) while they play a game there."""
        old = await self.hub.room_of(pl.key)
        if old is None or old == keep:
            return True
        answer = await self.hub.act(old, pl.key, pl.name, "leave")
        return answer != "playing"

    async def _open(self, pl: Player, seats: int) -> str | None:
        """A new private table hosted by ``pl``, its code (None while they play
        elsewhere)."""
        if not await self._leave_others(pl):
            return None
        msg = p.CreateRoom(seats=seats, move_time=30, visibility="private", bot_level=3)
        room = await self.hub.create_room(pl, msg, self.public)
        return room.code

    async def on_durak(self, message: Message, command: CommandObject) -> None:
        pl, lang = await self._bind(message.from_user)
        seats = _seats(command.args or "")
        if message.chat.type == "private":
            await self.bot.send_message(message.chat.id, text(lang, "group_only"))
            await self._ask_seats(message.chat.id, lang)
            return
        code = await self._open(pl, seats)
        if code is None:
            await self.bot.send_message(message.chat.id, text(lang, "busy"))
            return
        table = Table(code, chat_id=message.chat.id, lang=lang, group=True)
        info = await self.hub.room_info(code)
        assert info is not None  # made here, just now
        body, markup = self._render(info, table)
        sent = await self.bot.send_message(message.chat.id, body, reply_markup=markup)
        table.message_id, table.last_text = sent.message_id, body
        self.tables[code] = table
        await tables.add(self.hub, table)
        log.event("telegram_room", room=code, seats=seats, group=True)

    async def on_join_button(self, query: CallbackQuery) -> None:
        code = str(query.data)[2:]
        pl, lang = await self._bind(query.from_user)
        table = self.tables.get(code)
        lang = table.lang if table else lang
        answer: str | None = None
        try:
            if await self.hub.room_info(code) is not None:
                if await self._leave_others(pl, keep=code):
                    answer = await self.hub.act(code, pl.key, pl.name, "seat")
                else:
                    answer = "playing"
        except p.ProtocolError as exc:  # the room's process did not answer
            await query.answer(exc.message, show_alert=True)
            return
        if answer is None:
            await query.answer(text(lang, "no_room"), show_alert=True)
            return
        await query.answer(text(lang, SEAT_ANSWERS.get(answer, "busy")), show_alert=False)
        await self._start_if_full(code)
        await self._refresh(code)

    async def on_start_button(self, query: CallbackQuery) -> None:
        code = str(query.data)[2:]
        table = self.tables.get(code)
        lang = table.lang if table else bot_language(query.from_user.language_code)
        info = await self.hub.room_info(code)
        if info is None:
            await query.answer(text(lang, "no_room"), show_alert=True)
            return
        key = telegram_player_key(self.settings.player_secret, query.from_user.id)
        name = query.from_user.first_name or "player"
        try:
            answer = await self.hub.act(code, key, name, "start")
        except p.ProtocolError as exc:
            await query.answer(exc.message, show_alert=True)
            return
        if answer is None:
            await query.answer(text(lang, "no_room"), show_alert=True)
        elif answer == "not_host":
            host = escape(info.get("host_name") or "?")
            await query.answer(text(lang, "only_host", host=host), show_alert=True)
        elif answer == "not_lobby":
            await query.answer(text(lang, "table_started"))
        elif answer.startswith("refused:"):  # e.g. a start that raced this one
            log.warning("telegram_start_failed", room=code, error=answer[8:])
            await query.answer(answer[8:], show_alert=True)
        else:
            await query.answer()
            await self._refresh(code)

    async def on_nudges(self, message: Message, command: CommandObject) -> None:
        pl, lang = await self._bind(message.from_user)
        assert message.from_user is not None
        arg = (command.args or "").strip().lower()
        row = await user_by_player(self.hub, pl.key)
        current = bool(row and row["nudges"])
        on = {"on": True, "off": False}.get(arg, not current)
        await set_nudges(self.hub, message.from_user.id, on)
        await self.bot.send_message(
            message.chat.id, text(lang, "nudges_on" if on else "nudges_off")
        )

    async def on_nudges_button(self, query: CallbackQuery) -> None:
        _pl, lang = await self._bind(query.from_user)
        await set_nudges(self.hub, query.from_user.id, False)
        await query.answer(text(lang, "nudges_off"), show_alert=True)

    async def on_inline(self, query: InlineQuery) -> None:
        """Typing the bot's name in any chat: "invite to a table" (the user's
        own table, or the one named by the share button's code)."""
        lang = bot_language(query.from_user.language_code)
        key = telegram_player_key(self.settings.player_secret, query.from_user.id)
        wanted = query.query.strip()
        info = await self.hub.room_info(wanted) if wanted else None
        if info is None:
            mine = await self.hub.room_of(key)
            info = await self.hub.room_info(mine) if mine else None
        if info is None or info["state"] != "lobby":
            button = InlineQueryResultsButton(
                text=text(lang, "inline_create"), start_parameter="new"
            )
            await query.answer([], cache_time=0, is_personal=True, button=button)
            return
        code, seats = str(info["code"]), info["seats"]
        host = escape(info.get("host_name") or "")
        free = sum(1 for s in seats if s["name"] is None and s["bot"] is None)
        article = InlineQueryResultArticle(
            id=code,
            title=text(lang, "inline_title"),
            description=text(lang, "inline_desc", n=len(seats), free=free),
            input_message_content=InputTextMessageContent(
                message_text=text(lang, "invite_text", name=host, n=len(seats)),
                parse_mode=ParseMode.HTML,
            ),
            reply_markup=InlineKeyboardMarkup(
                inline_keyboard=[
                    [InlineKeyboardButton(text=text(lang, "join"), url=self.deep_link(code))]
                ]
            ),
        )
        await query.answer([article], cache_time=0, is_personal=True)

    # ------------------------------------------------------------ group tables
    def _render(self, info: dict[str, Any], table: Table) -> tuple[str, InlineKeyboardMarkup]:
        lang, code = table.lang, str(info["code"])
        lines = []
        for s in info["seats"]:
            if s["human"]:
                name = escape(s["name"] or "")
                if s.get("bot_account"):  # a program on the bot API (docs/bot-api.md)
                    name += f" [{text(lang, 'bot_tag')}]"
            elif s["bot"] is not None:
                name = text(lang, "bot_seat")
            else:
                name = "— " + text(lang, "free_seat")
            lines.append(f"{s['seat'] + 1}. {name}")
        seats = "\n".join(lines)
        open_button = [
            InlineKeyboardButton(text=text(lang, "open_table"), url=self.deep_link(code))
        ]
        if info["state"] == "lobby":
            host = escape(info.get("host_name") or "")
            body = text(lang, "table_lobby", host=host, n=len(info["seats"]), seats=seats)
            rows = [
                [
                    InlineKeyboardButton(text=text(lang, "take_seat"), callback_data=f"j:{code}"),
                    InlineKeyboardButton(text=text(lang, "start_bots"), callback_data=f"s:{code}"),
                ],
                open_button,
            ]
        else:
            body = text(lang, "table_playing", seats=seats)
            rows = [open_button]
        return body, InlineKeyboardMarkup(inline_keyboard=rows)

    async def _refresh(self, code: str, closed: bool = False) -> None:
        """Bring a group's table message up to date (only when it changed); a
        closed room's table is forgotten."""
        table = self.tables.get(code)
        if table is None:
            return
        info = None if closed else await self.hub.room_info(code)
        if table.group and table.message_id is not None:
            if info is None:
                body, markup = text(table.lang, "table_closed"), None
            else:
                body, markup = self._render(info, table)
            if body != table.last_text:
                table.last_text = body
                try:
                    await self.bot.edit_message_text(
                        text=body, chat_id=table.chat_id, message_id=table.message_id,
                        reply_markup=markup,
                    )  # fmt: skip
                except TelegramBadRequest as exc:  # e.g. the message was deleted
                    log.warning("telegram_edit_failed", room=code, error=str(exc))
                await tables.save_message(self.hub, table)
        if info is None:
            del self.tables[code]
            await tables.remove(self.hub, code)

    async def _start_if_full(self, code: str) -> None:
        """A bot-made table starts when every seat has a person (for its host)."""
        if code not in self.tables:
            return
        try:
            answer = await self.hub.act(code, "", "", "start_if_full")
        except p.ProtocolError as exc:
            log.warning("telegram_start_failed", room=code, error=exc.message)
            return
        if answer is not None and answer.startswith("refused:"):
            log.warning("telegram_start_failed", room=code, error=answer[8:])

    async def _post_result(self, code: str, game: int, host: str | None) -> None:
        """The result of ``game`` in its group, once (claimed in the database first)."""
        table = self.tables.get(code)
        if table is None or not table.group or game <= table.posted_game:
            return
        done = await tables.finished_game(self.hub, code, game)
        if done is None or not await tables.claim_post(self.hub, code, game):
            return
        table.posted_game = game
        lang = table.lang
        host_name = escape(host or "")
        if done.durak is None:
            body = text(lang, "result_draw", host=host_name)
        else:
            name = escape(done.durak_name) if done.durak_name else text(lang, "bot_seat")
            key = "result_pogony" if done.pogony else "result_durak"
            body = text(lang, key, host=host_name, name=name)
        for who, candies, before, after in done.earned:
            if before is None or after is None:
                line = text(lang, "earned", name=escape(who), candies=candies)
            else:
                line = text(lang, "earned_rated", name=escape(who), candies=candies,
                            before=before, after=after)  # fmt: skip
            body += "\n" + line
        await self.bot.send_message(table.chat_id, body)
        log.event("telegram_result", room=code, game=game, durak=done.durak)

    # ------------------------------------------------------------ the watcher
    async def _watch(self) -> None:
        """Bring every table up to date once (a game may have ended while no
        process ran the bot), then follow the rooms' events."""
        for code in list(self.tables):
            await self._catch_up(code)
        while True:
            try:
                events = await self.hub.coord.read_events("telegram", self.poll)
                for event in events:
                    await self._on_event(event)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.error("telegram_watch_failed", error=repr(exc))
                await asyncio.sleep(self.poll)

    async def _catch_up(self, code: str) -> None:
        info = await self.hub.room_info(code)
        await self._refresh(code)
        if info is not None and info["state"] == "over":
            await self._post_result(code, int(info["game"]), info.get("host_name"))

    async def _on_event(self, event: dict[str, Any]) -> None:
        kind = event.get("kind")
        if kind == "room":
            code = str(event["room"])
            if code in self.tables:
                if not event.get("closed"):
                    await self._start_if_full(code)
                await self._refresh(code, bool(event.get("closed")))
        elif kind == "over":
            await self._post_result(str(event["room"]), int(event["game"]), event.get("host"))
        elif kind == "waiting":
            await self._nudge(event)
        elif kind == "back":
            self.nudged.discard(str(event["player"]))  # the next absence may be nudged

    async def _nudge(self, event: dict[str, Any]) -> None:
        """A turn waits for a person who is not at the table: remind them once
        (until they have been back), if they want reminders."""
        key = str(event["player"])
        if key in self.nudged:
            return
        row = await user_by_player(self.hub, key)
        if row is None or not row["nudges"]:
            return
        self.nudged.add(key)
        chat, lang, code = int(row["tg_id"]), str(row["lang"]), str(event["room"])
        names = ", ".join(escape(n) for n in event.get("others") or []) or text(lang, "bot_seat")
        markup = InlineKeyboardMarkup(
            inline_keyboard=[
                [self._button_web(text(lang, "back_to_table"), self.room_url(code))],
                [InlineKeyboardButton(text=text(lang, "nudges_stop"), callback_data="n:off")],
            ]
        )
        try:
            await self.bot.send_message(chat, text(lang, "nudge", names=names), reply_markup=markup)
            log.event("telegram_nudge", room=code, player=event.get("name"))
        except TelegramAPIError as exc:  # the user never started the bot, or blocked it
            log.warning("telegram_nudge_failed", room=code, error=str(exc))


def _seats(arg: str) -> int:
    try:
        n = int(arg.strip().split()[0])
    except (ValueError, IndexError):
        return DEFAULT_SEATS
    return n if 2 <= n <= 6 else DEFAULT_SEATS


async def start_bot(hub: Hub, settings: TelegramSettings) -> KozyrBot:
    """Start the bot in the running loop (:mod:`.server` calls this when the
    server has started)."""
    bot = KozyrBot(hub, settings)
    bot.start()
    return bot


__all__ = ["KozyrBot", "Retry", "start_bot"]
