"""The hub: players, the room registry, and what each client message does.

Why one hub object: the server's shared services (store, bot pool, config,
throttles, background tasks) are created once at startup and handed to every
room through it, so tests and the benchmark can build a whole server from a
:class:`~kozyr.server.config.ServerConfig` without globals.

Message handling is a plain ``match`` on the validated message type; every
refusal is a :class:`~kozyr.server.protocol.ProtocolError` that becomes an
``error`` message, leaving the room as it was.
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
import time
import traceback
import unicodedata
from typing import Any

import msgspec

from kozyr.engine.record import RecordError
from kozyr.engine.rules import Rules, RulesError

from .. import protocol as p
from ..config import ServerConfig
from ..players.settle import awards_of
from ..storage.analyses import SqlAnalyses
from ..storage.store import Store
from ..telemetry import log, metrics
from ..telemetry.metrics import Metrics
from . import chatter, hints, on_behalf, seating
from .analysis_pool import AnalysisService
from .bot_accounts import BotAccounts
from .bot_pool import BotPool
from .challenges import Challenges
from .game_session import GameSession
from .passphrase import MemoryPassphraseThrottle, PassphraseThrottle
from .ports import Coordinator, Peer
from .quick import quick_match
from .rooms import Player, Room, Seat, hash_passphrase, new_code
from .timers import Tasks


def player_key(token: str) -> str:
    """Players are stored by the hash of their token, never the token itself."""
    return hashlib.sha256(token.encode()).hexdigest()


#: A name's length limit in user-perceived characters (grapheme clusters):
#: 小明 is two, Анна four, 👨‍👩‍👧 one.  docs/protocol.md, "Names".
NAME_MAX = 12
#: ... and at most this many code points as sent (👨‍👩‍👧 is one character, five code points).
NAME_CODE_POINTS = 64

# Format characters that belong inside a character: zero width (non-)joiner
# (emoji sequences, Persian, Indic scripts) and tags (subdivision flags).
_JOINERS = frozenset({0x200C, 0x200D})
_REFUSED = frozenset({"Cc", "Cs", "Co", "Cn", "Zl", "Zp"})


def _refused_char(ch: str) -> bool:
    """Control, format (bidi overrides, zero-width space...), unassigned or private use."""
    cat = unicodedata.category(ch)
    if cat == "Cf":
        return ord(ch) not in _JOINERS and not 0xE0020 <= ord(ch) <= 0xE007F
    return cat in _REFUSED


def graphemes(text: str) -> int:
    """User-perceived characters, as the browser's ``Intl.Segmenter`` counts them
    for names: combining marks, variation selectors, emoji modifiers and tags
    join the character before them, a zero width joiner joins two characters, and
    regional indicators pair into flags.  (A close approximation of Unicode's
    extended grapheme clusters: exact for the scripts and emoji people type in
    names; an Indic conjunct may count as two where a recent browser says one.)"""
    count = 0
    joined = False  # the previous character was a zero width joiner
    flag_half = False  # an unpaired regional indicator came just before
    for ch in text:
        cp = ord(ch)
        extend = (
            unicodedata.category(ch) in ("Mn", "Mc", "Me")
            or cp in _JOINERS
            or 0x1F3FB <= cp <= 0x1F3FF
            or 0xE0020 <= cp <= 0xE007F
        )
        regional = 0x1F1E6 <= cp <= 0x1F1FF
        if not extend and not joined and not (regional and flag_half):
            count += 1
        flag_half = regional and not flag_half
        joined = cp == 0x200D
    return count


def check_name(name: str) -> str:
    """A display name (docs/protocol.md, "Names"): after NFC normalisation, runs
    of white space become one space and the ends are trimmed; then it must be 1
    to 12 user-perceived characters with at least one letter, digit, punctuation
    mark or symbol, and no control or invisible format characters.  Every
    breach is ``bad_name`` with the reason."""
    if len(name) > NAME_CODE_POINTS:  # before any work on it: the wire limit
        raise p.ProtocolError(
            p.Code.BAD_NAME,
            f"a name is at most {NAME_MAX} characters ({NAME_CODE_POINTS} code points)",
        )
    name = " ".join(unicodedata.normalize("NFC", name).split())
    if not name:
        raise p.ProtocolError(p.Code.BAD_NAME, "a name cannot be empty or only spaces")
    if any(_refused_char(ch) for ch in name):
        raise p.ProtocolError(
            p.Code.BAD_NAME, "a name cannot contain control or invisible format characters"
        )
    if not any(unicodedata.category(ch)[0] in "LNPS" for ch in name):
        raise p.ProtocolError(p.Code.BAD_NAME, "a name needs a letter, digit or symbol")
    if graphemes(name) > NAME_MAX:
        raise p.ProtocolError(p.Code.BAD_NAME, f"a name is at most {NAME_MAX} characters")
    return name


#: A public room nobody is connected to leaves the lobby list after this long (s).
UNLISTED_AFTER = 60.0


def listed(info: dict[str, Any], now: float | None = None) -> bool:
    """Does a public room in the lobby show in the lobby list?  Yes while
    someone is connected to it, and for a minute after the last one went."""
    if info.get("connected", 1) or info.get("empty_since") is None:
        return True
    now_ms = (time.time() if now is None else now) * 1000
    return bool(now_ms - info["empty_since"] < UNLISTED_AFTER * 1000)


class Hub:
    """Everything the server shares between connections."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        # One process writes its moves on the event loop (store.py, _LoopMoves);
        # a cluster's processes share the database through the store thread.
        self.store = Store(config.db_url, inline_moves=not config.redis_url)
        assert config.bot_workers is not None
        self.pool = BotPool(config.bot_workers)
        self.analysis = AnalysisService(
            SqlAnalyses(self.store),
            self.store.finished_record,
            workers=config.analysis_workers,
            concurrency=config.analysis_concurrency,
            queue_limit=config.analysis_queue,
            rate=config.analyses_per_hour / 3600,
            burst=config.analysis_burst,
            budget=config.analysis_budget,
        )
        self.tasks = Tasks()
        #: Wrong-passphrase back-off, in this process's memory; a cluster
        #: installs one in Redis at startup (the per-address count spans processes).
        self.throttle: PassphraseThrottle = MemoryPassphraseThrottle(
            config.passphrase_backoff, config.passphrase_backoff_cap
        )
        self.rooms: dict[str, Room] = {}
        self.players: dict[str, Player] = {}
        #: This process's open sockets (the edge tells: :meth:`opened`, :meth:`closed`).
        self.connections: set[Peer] = set()
        self.moves = 0
        #: Room events are published only when a program built on the server
        #: follows them (:meth:`want_events`; kozyr.telegram does).
        self.events_wanted = False
        self.metrics = Metrics()
        self.started = time.time()
        #: Where rooms live: here only (the base class), or across a cluster
        #: (kozyr.server.cluster sets its own at startup).
        self.coord: Coordinator = Coordinator()
        #: Bot accounts and the challenges sent to them (docs/bot-api.md).
        self.bots = BotAccounts(self.store)
        self.challenges = Challenges(self)
        self._reaper: asyncio.Task[None] | None = None

    # ------------------------------------------------------------ lifecycle
    async def startup(self) -> None:
        self.store.start()
        await self.pool.warm_up()
        if type(self.coord) is Coordinator:  # a cluster adopts rooms by lease instead
            await self.recover()
        self._reaper = asyncio.get_running_loop().create_task(self._reap_idle_rooms())

    async def shutdown(self) -> None:
        if self._reaper is not None:
            self._reaper.cancel()
        for room in list(self.rooms.values()):
            room.shutdown()
        self.tasks.cancel_all()
        self.pool.shutdown()
        self.analysis.shutdown()
        self.store.close_loop_moves()
        await asyncio.to_thread(self.store.close)

    async def recover(self) -> None:
        """Rebuild every open room from the database (after a restart or crash).

        Games in progress are replayed from their stored moves; every human is
        disconnected until they come back with their token (the game waits,
        paused, until someone does; absent players get the usual grace).
        """
        for code, data in await self.store.open_rooms():
            await self.load_room(code, data)

    async def load_room(self, code: str, data: dict[str, Any], fence: Any = None) -> Room | None:
        """Rebuild one room from its stored ``data`` and make it live here (None if
        the stored room is broken).  ``fence`` is the cluster's fencing token."""
        try:
            # The game is read before the room is built: building it makes its
            # players' ``room`` point at it, and a ``hello`` of one of them in
            # the meantime (a cluster adopts rooms while serving) would resync
            # a table without its game, which the client never gets later.
            game: GameSession | None = None
            game_id = data.get("game_id")
            if data["state"] != "lobby" and game_id is not None:
                loaded = await self.store.load_game(int(game_id))
                if loaded is None:
                    raise ValueError(f"game {game_id} is missing")
                record, game_no, base = loaded
                game = GameSession.resume(record, game_no, base)
                game.game_id = gid = int(game_id)
                if game.over and data["state"] != "playing":  # for a resync's game_over
                    game.awards = await self.store.call(
                        lambda conn: awards_of(conn, gid), read_only=True
                    )
            room = self._room_from_store(code, data)
            room.fence = fence
            room.game = game
            if game is not None and game.over and room.state == "playing":
                await room.finish()  # died while finishing (the room has its game)
            room.recovered()
        except (ValueError, KeyError, TypeError, RecordError, RulesError) as exc:
            log.error("room_recovery_failed", room=code, error=str(exc))
            return None
        self.rooms[code] = room
        log.event(
            "room_recovered",
            room=code,
            state=room.state,
            version=room.game.version if room.game else room.next_version,
        )
        return room

    def _room_from_store(self, code: str, data: dict[str, Any]) -> Room:
        pw = data.get("passphrase")
        room = Room(
            hub=self,
            code=code,
            rules=Rules.from_dict(data["rules"]),
            move_time=data["move_time"],
            visibility=data["visibility"],
            rated=bool(data.get("rated", False)),
            rate_bots=bool(data.get("rate_bots", False)),
            bot_level=int(data["bot_level"]),
            invite=str(data["invite"]),
            passphrase=(bytes.fromhex(pw[0]), bytes.fromhex(pw[1])) if pw else None,
            state=data["state"],
            game_no=int(data["game_no"]),
            next_version=int(data["next_version"]),
            last_durak=data.get("last_durak"),
        )
        for i, s in enumerate(data["seats"]):
            seat: Seat = room.seats[i]
            seat.bot, seat.auto = s.get("bot"), bool(s.get("auto"))
            kept = s.get("reserved")
            seat.reserved = (str(kept[0]), str(kept[1])) if kept else None
            if s.get("player"):
                pl = self._player(s["player"], s.get("name") or "player")
                pl.account = s.get("account")
                pl.room = room
                seat.player = pl
        for w in data.get("spectators", []):  # a database from before: none kept
            pl = self._player(w["player"], w.get("name") or "player")
            pl.account = w.get("account")
            if pl.room is None or pl.room is room:
                pl.room = room
                room.spectators.append(pl)
        host = data.get("host")
        room.host = self.players.get(host) if host else None
        now, wall = time.monotonic(), time.time()
        for key, until in (data.get("kicked") or {}).items():
            if until > wall:
                room.kicked[key] = now + (until - wall)
        return room

    def _player(self, key: str, name: str) -> Player:
        pl = self.players.get(key)
        if pl is None:
            pl = self.players[key] = Player(key, name)
        return pl

    def close_room(self, room: Room, why: str) -> None:
        if room.closed:
            return
        room.shutdown()
        self.challenges.room_closed(room)
        self.rooms.pop(room.code, None)
        g = room.game
        if g is not None and g.game_id is not None and room.state == "playing":
            self.tasks.spawn(self.store.abandon_game(g.game_id, room.fence), f"abandon-{room.code}")
        for pl in room.humans():
            pl.room = None
            self.forget(pl)
        self.store.save_room(room.code, room.state, room.to_store(), True, room.fence)
        self.coord.room_closed(room)
        log.event("room_closed", room=room.code, why=why)
        self.emit({"kind": "room", "room": room.code, "closed": True})

    async def _reap_idle_rooms(self) -> None:
        """Close rooms nobody is connected to: between games after
        ``empty_lobby_timeout`` (10 min), with a game in them after
        ``idle_room_timeout`` (an hour: its players may come back to it)."""
        config = self.config
        while True:
            await asyncio.sleep(min(30.0, config.idle_room_timeout, config.empty_lobby_timeout))
            now = time.monotonic()
            for room in list(self.rooms.values()):
                if room.watched():
                    continue
                limit = (
                    config.idle_room_timeout
                    if room.state == "playing"
                    else config.empty_lobby_timeout
                )
                if now - room.idle_since > limit:
                    self.close_room(room, "idle")

    # ------------------------------------------------------------ connections
    def opened(self, conn: Peer) -> None:
        self.connections.add(conn)
        log.event("ws_open", conn=conn.id, address=conn.address)

    def closed(self, conn: Peer, code: int | None) -> None:
        """A local socket closed (the edge has stopped its writer)."""
        self.connections.discard(conn)
        self.coord.conn_closed(conn)
        pl = conn.player
        log.event("ws_close", conn=conn.id, code=code, player=pl.name if pl else None)
        if pl is None or pl.conn is not conn:
            return
        pl.conn = None
        self.challenges.gone(pl)
        if pl.room is not None:
            pl.room.disconnected(pl)
        if pl.room is None:
            self.forget(pl)

    def forget(self, pl: Player) -> None:
        """Drop a player who is neither connected nor in a room from memory (the
        database still knows their token's hash and name)."""
        if pl.conn is None and pl.room is None:
            self.players.pop(pl.key, None)

    async def handle_text(self, conn: Peer, raw: str) -> None:
        """Parse and do one client message, from a local socket or (cluster) one
        forwarded by another process; a refusal or a bug becomes an ``error``
        frame to ``conn`` that names the message it answers."""
        msg: p.ClientMessage | None = None
        try:
            msg = p.decode(raw)
            await self.handle(conn, msg)
        except p.ProtocolError as exc:
            if exc.ref is None and msg is not None:
                exc.ref = p.type_of(msg)  # every refusal names the message it refuses
            log.event(
                "error",
                conn=conn.id,
                player=conn.player.name if conn.player else None,
                code=exc.code,
                message=exc.message,
                ref=exc.ref,
            )
            conn.send(exc.to_message())
        except Exception as exc:
            log.error(
                "internal_error", conn=conn.id, error=repr(exc), traceback=traceback.format_exc()
            )
            ref = p.type_of(msg) if msg is not None else None
            conn.send(p.Error(code=p.Code.INTERNAL, message="internal server error", ref=ref))

    async def handle(self, conn: Peer, msg: p.ClientMessage) -> None:
        """Do what one validated client message asks."""
        if isinstance(msg, p.Hello):
            await self._hello(conn, msg)
            return
        pl = conn.player
        if pl is None:
            raise p.ProtocolError(
                p.Code.HELLO_FIRST, "say hello first (name and, to resume, your token)"
            )
        if await self.coord.route(conn, msg):
            return
        match msg:
            case p.Ping():
                conn.send(p.Pong(t=msg.t))
            case p.CreateRoom():
                await self.create_room(pl, msg, conn.base_url)
            case p.Join():
                await self._join(pl, conn, msg)
            case p.QuickMatch():
                if pl.account is not None:
                    raise p.ProtocolError(
                        p.Code.BOT_ACCOUNT,
                        "quick match pairs people; a bot opens a public room and waits there",
                        "quick_match",
                    )
                await quick_match(self, pl, conn, msg)
            case p.Rename():
                await self._rename(pl, msg)
            case p.Accept():
                self.challenges.accept(pl, msg.challenge)
            case p.Decline():
                self.challenges.decline(pl, msg.challenge)
            case p.Sync():
                if pl.room is None:
                    raise p.ProtocolError(p.Code.NOT_IN_ROOM, "you are not in a room", "sync")
                pl.room.resync(pl)
            case _:
                room = pl.room
                if room is None:
                    kind = p.type_of(msg)
                    raise p.ProtocolError(p.Code.NOT_IN_ROOM, "join a room first", kind)
                await self._in_room(pl, room, msg)

    async def _in_room(self, pl: Player, room: Room, msg: p.ClientMessage) -> None:
        match msg:
            case p.Move():
                await room.move(pl, msg)
            case p.SeatBot():
                room.seat_bot(pl, msg.seat, msg.level)
            case p.FreeSeat():
                if not self.challenges.withdraw(room, pl, msg.seat):
                    room.free_seat(pl, msg.seat)
            case p.Challenge():
                await self.challenges.issue(room, pl, msg.seat, msg.bot)
            case p.Start():
                await room.start(pl)
            case p.Rematch():
                await room.rematch(pl)
            case p.BackToRoom():
                room.back_to_room(pl)
            case p.Leave():
                room.remove_player(pl)
                await self.coord.flushed(room)
                pl.send(p.Left(room=room.code))
            case p.Sit():
                seating.sit(room, pl, msg.seat)
            case p.Stand():
                seating.stand(room, pl)
            case p.Ready():
                seating.set_ready(room, pl, msg.ready)
            case p.Kick():
                seating.kick(room, pl, msg.seat, msg.spectator)
                await self.coord.flushed(room)
            case p.Say():
                chatter.say(room, pl, msg.phrase)
            case p.React():
                chatter.react(room, pl, msg.reaction)
            case p.Hint():
                hints.hint(room, pl)
            case _:  # pragma: no cover - every type is handled above
                raise p.ProtocolError(p.Code.UNKNOWN_TYPE, "not handled", p.type_of(msg))

    # ------------------------------------------------------------ hello
    async def _hello(self, conn: Peer, msg: p.Hello) -> None:
        if conn.player is not None:
            raise p.ProtocolError(p.Code.ALREADY_HELLO, "hello was already said", "hello")
        if msg.protocol != p.PROTOCOL_VERSION:
            raise p.ProtocolError(
                p.Code.UNSUPPORTED_PROTOCOL,
                f"this server speaks protocol {p.PROTOCOL_VERSION}, not {msg.protocol}",
                "hello",
            )
        name = check_name(msg.name)
        pl, token, resumed = await self.identify(msg.token, name, slot=msg.slot)
        old = pl.conn
        if old is not None and old is not conn:
            old.send(p.Error(code=p.Code.REPLACED, message="you connected from somewhere else"))
            old.player = None
            old.close(1000, "replaced by a newer connection")
        pl.conn = conn
        conn.player = pl
        elsewhere = None
        if pl.room is None and resumed:
            elsewhere = await self.coord.room_elsewhere(pl.key)
        conn.send(
            p.Welcome(
                protocol=p.PROTOCOL_VERSION,
                token=token,
                name=pl.name,
                resumed=resumed,
                room=pl.room.code if pl.room else elsewhere,
            )
        )
        log.event("hello", conn=conn.id, player=pl.name, resumed=resumed)
        self.emit({"kind": "back", "player": pl.key})
        if pl.room is not None:
            pl.room.reconnected(pl)
        elif elsewhere is not None:
            await self.coord.attach(conn, pl, elsewhere)

    async def identify(
        self, token: str | None, name: str, rename: bool = True, slot: int = 0
    ) -> tuple[Player, str, bool]:
        """(player, token, resumed): the token's player, or a new one.  A known
        player takes ``name`` unless ``rename`` is false (the caller renames
        with :meth:`rename` once the request it belongs to has succeeded).
        A bot account's token gives its connection ``slot``, with the
        account's name whatever ``name`` says (docs/bot-api.md)."""
        bot = await self.bots.identify(token, slot)
        if bot is not None and token is not None:
            account, slot_key = bot
            slot_pl = self._player(slot_key, account.name)
            slot_pl.account = account.key
            return slot_pl, token, True
        if token is not None:
            key = player_key(token)
            pl = self.players.get(key)
            if pl is None:
                stored = await self.store.player_name(key)
                if stored is not None:
                    pl = self._player(key, stored)
            if pl is not None:
                if rename:
                    await self.rename(pl, name)
                return pl, token, True
        token = secrets.token_urlsafe(24)
        key = player_key(token)
        await self.store.add_player(key, name)
        return self._player(key, name), token, False

    async def _rename(self, pl: Player, msg: p.Rename) -> None:
        """A new name between games (``rename``); the room sees it at once."""
        name = check_name(msg.name)
        if pl.account is not None:
            raise p.ProtocolError(
                p.Code.BOT_ACCOUNT, "a bot account keeps the name it was made with", "rename"
            )
        room = pl.room
        if room is not None and room.state == "playing":
            raise p.ProtocolError(p.Code.WRONG_STATE, "names are changed between games", "rename")
        await self.rename(pl, name)
        pl.send(p.Renamed(name=pl.name))
        if room is not None:
            room.changed()
            room.broadcast_room()

    async def rename(self, pl: Player, name: str) -> None:
        """``pl`` is called ``name`` from now on (a bot account keeps its own)."""
        if pl.name != name and pl.account is None:
            pl.name = name
            await self.store.add_player(pl.key, name)

    # ------------------------------------------------------------ rooms
    async def create_room(
        self,
        pl: Player,
        msg: p.CreateRoom,
        base_url: str,
        rename: str | None = None,
        quick: str | None = None,
    ) -> Room:
        """Open a room with ``pl`` as host; ``rename`` (HTTP) is the host's name
        from now on, applied only once every check has passed; ``quick`` makes
        it a quick-match room of that kind (:mod:`.quick`)."""
        if pl.room is not None:
            raise p.ProtocolError(
                p.Code.ALREADY_IN_ROOM, "leave your room before creating another", "create_room"
            )
        rules_data = dict(msg.rules)
        if rules_data.setdefault("players", msg.seats) != msg.seats:
            raise p.ProtocolError(
                p.Code.BAD_RULES, "rules.players must equal seats (or be left out)", "create_room"
            )
        try:
            rules = Rules.from_dict(rules_data)
        except (RulesError, TypeError) as exc:
            raise p.ProtocolError(p.Code.BAD_RULES, str(exc), "create_room") from None
        if msg.visibility == "public":
            if msg.move_time is None:
                raise p.ProtocolError(
                    p.Code.BAD_ROOM, "public rooms need a move timer (30 or 60 s)", "create_room"
                )
            if msg.passphrase is not None:
                raise p.ProtocolError(
                    p.Code.BAD_ROOM, "only private rooms have a passphrase", "create_room"
                )
        if msg.start and msg.visibility != "private":
            raise p.ProtocolError(
                p.Code.BAD_ROOM, "a game against the computer is a private room", "create_room"
            )
        if rename is not None:
            await self.rename(pl, rename)
        passphrase = None
        if msg.passphrase is not None:
            salt = secrets.token_bytes(16)
            passphrase = (salt, await asyncio.to_thread(hash_passphrase, msg.passphrase, salt))
        code = new_code()
        room = Room(
            hub=self,
            code=code,
            rules=rules,
            move_time=msg.move_time,
            visibility=msg.visibility,
            bot_level=msg.bot_level,
            invite=f"{base_url}/?room={code}",
            passphrase=passphrase,
            rated=msg.visibility == "public" if msg.rated is None else msg.rated,
            rate_bots=msg.rate_bots,
        )
        self.rooms[code] = room
        room.seats[0].player = pl
        room.host = pl
        pl.room = room
        if msg.start:
            for seat in room.seats[1:]:
                seat.bot = msg.bot_level
        if quick is not None:
            room.arm_quick(quick, self.config.quick_wait)
        log.event(
            "room_created",
            room=code,
            host=pl.name,
            seats=msg.seats,
            visibility=msg.visibility,
            move_time=msg.move_time,
            bot_level=msg.bot_level,
            rules=rules.to_dict(),
        )
        await self.coord.claim(room)
        room.changed()
        await self.coord.created(room)
        if msg.start:
            await room.start(pl)
        else:
            room.resync(pl)
        return room

    async def _join(self, pl: Player, conn: Peer, msg: p.Join) -> None:
        if pl.room is not None:
            if pl.room.code == msg.room:
                pl.room.resync(pl)
                return
            raise p.ProtocolError(
                p.Code.ALREADY_IN_ROOM, "leave your room before joining another", "join"
            )
        room = self.rooms.get(msg.room)
        if room is None:
            if await self.coord.join_elsewhere(conn, pl, msg):
                return
            raise p.ProtocolError(p.Code.NO_SUCH_ROOM, "no room has that invite code", "join")
        if room.passphrase is not None:
            await self._check_passphrase(room, conn.address, msg.passphrase)
        if room.closed:
            raise p.ProtocolError(p.Code.NO_SUCH_ROOM, "that room has closed", "join")
        room.add_player(pl, msg.seat)

    async def _check_passphrase(self, room: Room, address: str, given: str | None) -> None:
        """Check a passphrase under the throttle (one attempt at a time per room
        and per address; docs/protocol.md, "Rooms")."""
        wait = await self.throttle.begin(room.code, address)
        if wait > 0:
            raise p.ProtocolError(
                p.Code.THROTTLED,
                f"passphrase attempts are held back (this room or your address): "
                f"try again in {wait:.1f} s",
                "join",
                round(wait, 2),
            )
        ok = False
        try:
            ok = await asyncio.to_thread(room.check_passphrase, given)
        finally:
            delay = await self.throttle.end(room.code, address, ok)
        if not ok:
            log.warning("wrong_passphrase", room=room.code, address=address)
            raise p.ProtocolError(
                p.Code.WRONG_PASSPHRASE,
                f"wrong passphrase; next try allowed in {delay:g} s",
                "join",
                delay,
            )

    # ------------------------------------------------------------ HTTP helpers
    def health(self) -> dict[str, Any]:
        return {
            "status": "ok",
            "protocol": p.PROTOCOL_VERSION,
            "rooms": len(self.rooms),
            "games": sum(1 for r in self.rooms.values() if r.state == "playing"),
            "connections": len(self.connections),
            "moves": self.moves,
            "uptime": round(time.time() - self.started, 1),
            **self.coord.health(self.rooms),
        }

    def metrics_text(self) -> str:
        """``GET /metrics``: this process's figures (Prometheus text format)."""
        return metrics.render(
            self.metrics,
            connections=len(self.connections),
            rooms_owned=len(self.rooms),
            rooms_attached=self.coord.attached_rooms(),
            games=sum(1 for r in self.rooms.values() if r.state == "playing"),
            fenced=self.store.fenced,
            node=self.coord.node,
        )

    # ------------------------------------------------------------ programs on the server
    def want_events(self) -> None:
        """From now on rooms here publish their events (a program follows them)."""
        self.events_wanted = True

    def emit(self, event: dict[str, Any]) -> None:
        """A room event (``room`` changed, game ``over``, a turn ``waiting`` for an
        absent person, a person ``back``), for the program that follows them."""
        if self.events_wanted:
            self.coord.publish_event(event)

    async def act(self, code: str, key: str, name: str, action: str) -> str | None:
        """Do ``action`` (:mod:`.on_behalf`) for person ``key`` in room ``code``,
        wherever the room lives; the answer, or None if there is no such room."""
        if action not in on_behalf.ACTIONS:
            raise ValueError(f"unknown action {action!r}")
        room = self.rooms.get(code)
        if room is None or room.closed:
            return await self.coord.act(code, key, name, action)
        return await self.act_here(room, key, name, action)

    async def act_here(self, room: Room, key: str, name: str, action: str) -> str:
        """:meth:`act` in a room of this process (a cluster's owner runs it for
        the process that asked).  ``start_if_full`` acts for the room's host."""
        if action == "start_if_full":
            return await on_behalf.act(room, None, action)
        fresh = key not in self.players
        pl = self._player(key, name)
        try:
            return await on_behalf.act(room, pl, action)
        finally:
            if fresh:
                self.forget(pl)

    async def room_of(self, key: str) -> str | None:
        """The open room person ``key`` is in (seated or watching), wherever it lives."""
        pl = self.players.get(key)
        if pl is not None and pl.room is not None:
            return pl.room.code
        return await self.coord.room_elsewhere(key)

    async def room_info(self, code: str) -> dict[str, Any] | None:
        """A room's public info (``RoomInfo`` as JSON), wherever it lives; None if
        there is no such open room."""
        room = self.rooms.get(code)
        if room is not None and not room.closed:
            return dict(msgspec.to_builtins(room.info()))
        return await self.coord.room_info(code)

    def public_rooms(self) -> list[dict[str, Any]]:
        out = []
        for room in self.rooms.values():
            if room.visibility == "public" and room.state == "lobby":
                info = msgspec.to_builtins(room.info())
                if listed(info):
                    out.append(info)
        return out
