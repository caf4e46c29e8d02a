"""The WebSocket protocol (version 1): every message, typed and validated.

docs/protocol.md is the prose specification; this module is its executable
form.  Each message is a JSON object whose ``"type"`` picks a msgspec Struct
from a tagged union, so a message is checked field by field (types, lengths,
ranges, no unknown fields) before any game code sees it.  Server messages are
Structs too, which keeps what the server can send in one reviewable place.

Why msgspec: it validates and encodes in C, several times faster than pure
Python; on a two-core machine holding a thousand sockets that matters.
"""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal

import msgspec
from msgspec import Meta, Struct, field

PROTOCOL_VERSION: Final = 1

#: A display name on the wire: any string.  The rule (1-12 user-perceived
#: characters, at most 64 code points, no control characters) is
#: ``lobby.check_name``, so that every bad name gets the specific code
#: ``bad_name`` with a reason (a name that is not a string is ``invalid_message``).
Name = str
Token = Annotated[str, Meta(min_length=16, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")]
RoomCode = Annotated[str, Meta(min_length=8, max_length=32, pattern=r"^[A-Za-z0-9_-]+$")]
#: New invite codes use this alphabet: no punctuation, and none of 0/O, 1/I/L, so
#: a code read aloud or from a screen is typed right (older codes stay valid).
CODE_ALPHABET: Final = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
Passphrase = Annotated[str, Meta(min_length=1, max_length=64)]
Level = Annotated[int, Meta(ge=1, le=10)]
SeatNo = Annotated[int, Meta(ge=0, le=5)]
SeatCount = Annotated[int, Meta(ge=2, le=6)]
Version = Annotated[int, Meta(ge=0)]


# ------------------------------------------------------------ client -> server
class _Client(Struct, tag_field="type", forbid_unknown_fields=True, kw_only=True):
    """Base of client messages: tagged by ``type``; unknown fields are errors."""


class Hello(_Client, tag="hello"):
    """First message on every connection: who you are.  With the ``token`` from
    an earlier ``welcome`` you are the same player and get your seat back."""

    name: Name
    protocol: int = PROTOCOL_VERSION
    token: Token | None = None
    #: Bot accounts only: which of the account's parallel connections this is
    #: (0 to ``BOT_MAX_GAMES`` - 1); each plays in at most one room at a time.
    slot: Annotated[int, Meta(ge=0, le=63)] = 0


class CreateRoom(_Client, tag="create_room"):
    """Open a room and become its host (seat 0).  ``rules`` are the engine's
    options (docs/rules.md); ``players`` may be left out (it is ``seats``).
    ``start`` (private rooms only) fills every other seat with a bot and starts
    at once: that is "play against the computer"."""

    seats: SeatCount = 4
    rules: dict[str, Any] = field(default_factory=dict)
    move_time: Literal[30, 60] | None = 30
    visibility: Literal["public", "private"] = "public"
    passphrase: Passphrase | None = None
    bot_level: Level = 3
    start: bool = False
    #: Rated (ratings change) or casual; None: rated if public, casual if private
    #: (docs/players.md).
    rated: bool | None = None
    #: A rated room's games rate bot accounts' seats too (docs/bot-api.md);
    #: otherwise a bot account is never rated and counts as a computer seat.
    rate_bots: bool = False


class Join(_Client, tag="join"):
    """Join a room by invite code: a free seat in the lobby, else as spectator."""

    room: RoomCode
    passphrase: Passphrase | None = None
    seat: SeatNo | None = None


class SeatBot(_Client, tag="seat_bot"):
    """Host, in the lobby: put a bot (of ``level``, default the room's) in a seat."""

    seat: SeatNo
    level: Level | None = None


class FreeSeat(_Client, tag="free_seat"):
    """Host, in the lobby: take a bot out of a seat."""

    seat: SeatNo


class Start(_Client, tag="start"):
    """Host: start the game; empty seats are filled with bots."""


class Move(_Client, tag="move"):
    """Play ``action`` (engine notation) in the position of state ``version``."""

    action: dict[str, Any]
    version: Version


class BackToRoom(_Client, tag="back_to_room"):
    """After a game: return the table to the lobby (same seats) for a rematch."""


class Rematch(_Client, tag="rematch"):
    """Host, after a game: start the next game at once with the same table."""


class Leave(_Client, tag="leave"):
    """Leave the room (a bot finishes your game)."""


class Sync(_Client, tag="sync"):
    """Ask for a full resync: room state and, in a game, your view."""


class Sit(_Client, tag="sit"):
    """A spectator, between games: sit in a free seat (the first, or ``seat``)."""

    seat: SeatNo | None = None


class Stand(_Client, tag="stand"):
    """A seated player, between games: stand up and watch."""


class Kick(_Client, tag="kick"):
    """Host, between games: send a player (``seat``) or a spectator (index in
    the room's ``spectators``) out of the room; they cannot come back for a while."""

    seat: SeatNo | None = None
    spectator: Annotated[int, Meta(ge=0, le=999)] | None = None


class Ready(_Client, tag="ready"):
    """A seated player, between games: mark yourself ready (or not) for the next game."""

    ready: bool


class Rename(_Client, tag="rename"):
    """Between games: take another display name (the rule of *Names*)."""

    name: Name


class QuickMatch(_Client, tag="quick_match"):
    """Play strangers now: a seat in a public room of this variant and size that
    is waiting, or a new one; empty seats fill with bots after a short wait."""

    variant: Literal["podkidnoy", "perevodnoy"] = "podkidnoy"
    seats: SeatCount = 2


#: A bot account's name, as the host types it (checked by the rule of *Names*).
BotName = Annotated[str, Meta(min_length=1, max_length=64)]
ChallengeId = Annotated[str, Meta(min_length=8, max_length=32, pattern=r"^[A-Za-z0-9_-]+$")]


class Challenge(_Client, tag="challenge"):
    """Host, in the lobby: ask the bot account ``bot`` (by name) to take the
    empty ``seat``; the seat waits for its answer (docs/bot-api.md)."""

    seat: SeatNo
    bot: BotName


class Accept(_Client, tag="accept"):
    """A bot account: take the seat a ``challenge`` frame offered."""

    challenge: ChallengeId


class Decline(_Client, tag="decline"):
    """A bot account: refuse a ``challenge``; the seat is free again."""

    challenge: ChallengeId


#: The quick phrases (each client shows them in its player's language).
PHRASES: Final = (
    "hello", "good_game", "well_played", "take_it", "hurry_up", "oops", "thanks", "good_luck",
    "nice_move", "sorry",
)  # fmt: skip
Phrase = Literal[
    "hello", "good_game", "well_played", "take_it", "hurry_up", "oops", "thanks", "good_luck",
    "nice_move", "sorry",
]  # fmt: skip
#: The reactions (each a picture the client draws: an emoji).
REACTIONS: Final = ("laugh", "wow", "cry", "angry", "clap", "think", "fire", "heart")
Reaction = Literal["laugh", "wow", "cry", "angry", "clap", "think", "fire", "heart"]


class Say(_Client, tag="say"):
    """A seated player: say one of the quick phrases at the table (no free text)."""

    phrase: Phrase


class React(_Client, tag="react"):
    """Anyone in the room (spectators too): show a reaction."""

    reaction: Reaction


class Ping(_Client, tag="ping"):
    """The client's heartbeat: answered ``pong`` with the same ``t``."""

    t: Annotated[int, Meta(ge=0, le=2**53)] | None = None


class Hint(_Client, tag="hint"):
    """Ask for the best move at a table where you are the only person (issue 27):
    answered ``hint`` or ``hint_unavailable``."""


ClientMessage = (
    Hello
    | CreateRoom
    | Join
    | SeatBot
    | FreeSeat
    | Start
    | Move
    | BackToRoom
    | Rematch
    | Leave
    | Sync
    | Sit
    | Stand
    | Kick
    | Ready
    | Rename
    | QuickMatch
    | Say
    | React
    | Ping
    | Hint
    | Challenge
    | Accept
    | Decline
)
_CLIENT_CLASSES = (
    Hello,
    CreateRoom,
    Join,
    SeatBot,
    FreeSeat,
    Start,
    Move,
    BackToRoom,
    Rematch,
    Leave,
    Sync,
    Sit,
    Stand,
    Kick,
    Ready,
    Rename,
    QuickMatch,
    Say,
    React,
    Ping,
    Hint,
    Challenge,
    Accept,
    Decline,
)
CLIENT_TYPES: Final = frozenset(str(c.__struct_config__.tag) for c in _CLIENT_CLASSES)


# ------------------------------------------------------------ server -> client
class _Server(Struct, tag_field="type", kw_only=True, omit_defaults=False):
    """Base of server messages."""


class Welcome(_Server, tag="welcome"):
    protocol: int
    token: str
    name: str
    #: True when the token was recognised (same player as before).
    resumed: bool
    #: The room you are in (you were put back into it), if any.
    room: str | None = None


class SeatInfo(Struct, kw_only=True):
    seat: int
    #: The human's name, or None for a bot or an empty seat.
    name: str | None
    #: Level of the bot sitting here or playing for an absent human, else None.
    bot: int | None
    human: bool
    connected: bool
    #: A human whose moves a bot is making (disconnected past the grace period).
    away: bool
    host: bool
    #: Between games: the player marked themselves ready for the next game.
    ready: bool = False
    #: The name of a player who left during a game: the seat is kept for them
    #: (a bot plays it meanwhile) until the next game starts.
    reserved_for: str | None = None
    #: The player here is a bot account (a program, not a person): show "BOT".
    bot_account: bool = False
    #: A bot account (its name) has been asked to sit here and has not answered yet.
    challenged: str | None = None


class RoomInfo(Struct, kw_only=True):
    code: str
    invite: str
    state: Literal["lobby", "playing", "over"]
    host: int | None
    host_name: str | None
    rules: dict[str, Any]
    move_time: int | None
    visibility: Literal["public", "private"]
    has_passphrase: bool
    bot_level: int
    seats: list[SeatInfo]
    spectators: list[str]
    game: int
    version: int
    #: People connected now (seated and watching).
    connected: int = 0
    #: When the last connected person went (Unix ms); None while someone is here.
    empty_since: int | None = None
    #: A quick-match room: when it starts with bots in the empty seats (Unix ms).
    quick_start: int | None = None
    #: The host is a bot account.
    host_bot: bool = False
    #: Indexes in ``spectators`` of the bot accounts watching.
    bot_spectators: list[int] = field(default_factory=list)
    #: Games here change ratings (docs/players.md).
    rated: bool = False
    #: ... bot accounts' too (docs/bot-api.md).
    rate_bots: bool = False


class You(Struct, kw_only=True):
    seat: int | None
    host: bool
    spectator: bool


class RoomState(_Server, tag="room"):
    room: RoomInfo
    you: You


class GameFrame(_Server, tag="game"):
    """Your view of the game after ``version`` actions (spectators: no hand)."""

    game: int
    version: int
    seat: int | None
    #: The seat's view (the engine's ``View.to_json()``); the server passes it
    #: already encoded (``msgspec.Raw``), see ``GameSession.seat_view``.
    view: dict[str, Any] | msgspec.Raw
    legal: list[dict[str, Any]]
    to_move: int | None
    #: When the player to move runs out of time (Unix ms), or None.
    deadline: int | None
    #: Milliseconds left at the moment this frame was sent, or None.
    time_left: int | None


class Event(_Server, tag="event"):
    """One applied action, public information only (draws are counts)."""

    game: int
    version: int
    seat: int
    action: dict[str, Any]
    #: player | bot | timeout (a bot moved for a human out of time) | takeover
    by: str
    #: None, "bito" (discarded) or "took" (the defender picked up) if the round ended.
    round_end: str | None
    #: Cards each seat drew from the deck after the round, or None.
    draws: list[int] | None
    deck: int
    #: An accusation's outcome (rule 13): {"verdict": "caught" | "fair", "card":
    #: "9S", "player": the seat that played the card}; None for every other action.
    #: Cheats themselves are never announced: the table shows them face up.
    accusation: dict[str, Any] | None = None


class GameOver(_Server, tag="game_over"):
    game: int
    version: int
    game_id: int | None
    result: dict[str, Any]
    durak: int | None
    durak_name: str | None
    pogony: bool
    cards_left: list[int]
    #: The finishing order: seats grouped by the moment they went out, first out
    #: first; the seats still holding cards at the end (the durak) come last.
    places: list[list[int]]
    #: Where the finished record can be fetched (GameRecord JSON, for kozyr replay).
    record: str | None
    #: The receiver's own candies for this game: {"amount", "reason", "capped"}
    #: (None: a spectator, or a game whose grants are not known).
    candies: dict[str, Any] | None = None
    #: The receiver's rating: {"variant", "before", "after", "games",
    #: "provisional"} (None: unrated, or a spectator).
    rating: dict[str, Any] | None = None
    #: Hints the receiving player used in this game (issue 27; 0 for everyone
    #: else, spectators included).
    hints: int = 0


class HintAnswer(_Server, tag="hint"):
    """The best move for the asking seat's view and its chance of not being the
    durak after it (a draw counts half), for the game frame of ``version``."""

    game: int
    version: int
    action: dict[str, Any]
    chance: float
    #: True when the chance is exact (an endgame solved to the end).
    exact: bool
    #: Hints this seat has used in this game, this one included.
    used: int


class Error(_Server, tag="error"):
    code: str
    message: str
    #: The ``type`` of the client message that caused it, when known.
    ref: str | None = None
    #: Seconds to wait before trying again (throttling), when relevant.
    retry_after: float | None = None


class Left(_Server, tag="left"):
    room: str
    #: "left" (you asked) or "kicked" (the host sent you out).
    reason: Literal["left", "kicked"] = "left"


class Said(_Server, tag="said"):
    """A quick phrase said at the table."""

    seat: int
    name: str
    phrase: str
    #: Said by a bot account.
    bot: bool = False


class Reacted(_Server, tag="reacted"):
    """A reaction: from a seat, or from a spectator (``seat`` None)."""

    seat: int | None
    name: str
    reaction: str
    #: From a bot account.
    bot: bool = False


class Pong(_Server, tag="pong"):
    t: int | None = None


class Renamed(_Server, tag="renamed"):
    """Your new name (``rename``), as cleaned by the rule of *Names*."""

    name: str


class ChallengeOffer(_Server, tag="challenge"):
    """To a bot account: the host of ``room`` asks it to sit in ``seat``.
    Answer ``accept`` or ``decline`` with ``challenge`` before ``expires``."""

    challenge: str
    room: RoomInfo
    seat: int
    host: str
    #: When the offer lapses (Unix ms) and the time limit it had (seconds).
    expires: int
    seconds: float


class ChallengeClosed(_Server, tag="challenge_closed"):
    """A challenge ended without the bot sitting down: to the host (the seat
    is free again) and, unless it declined itself, to the bot."""

    challenge: str
    room: str
    seat: int
    bot: str
    #: declined | timeout | offline (the bot's connection closed) | canceled
    #: (the host freed the seat, or the room closed)
    reason: Literal["declined", "timeout", "offline", "canceled"]


ServerMessage = (
    Welcome
    | RoomState
    | GameFrame
    | Event
    | GameOver
    | Error
    | Left
    | Said
    | Reacted
    | Pong
    | Renamed
    | HintAnswer
    | ChallengeOffer
    | ChallengeClosed
)


# ------------------------------------------------------------------ codes
class Code:
    """Error codes (``error.code``): stable strings clients may branch on."""

    BAD_JSON = "bad_json"
    UNKNOWN_TYPE = "unknown_type"
    INVALID = "invalid_message"
    TOO_BIG = "too_big"
    UNSUPPORTED_PROTOCOL = "unsupported_protocol"
    HELLO_FIRST = "hello_first"
    ALREADY_HELLO = "already_hello"
    BAD_NAME = "bad_name"
    NO_SUCH_ROOM = "no_such_room"
    WRONG_PASSPHRASE = "wrong_passphrase"
    THROTTLED = "throttled"
    NOT_IN_ROOM = "not_in_room"
    ALREADY_IN_ROOM = "already_in_room"
    NOT_HOST = "not_host"
    BAD_RULES = "bad_rules"
    BAD_ROOM = "bad_room"
    BAD_SEAT = "bad_seat"
    WRONG_STATE = "wrong_state"
    NOT_SEATED = "not_seated"
    FORGED_SEAT = "forged_seat"
    STALE_VERSION = "stale_version"
    NOT_YOUR_TURN = "not_your_turn"
    BAD_ACTION = "bad_action"
    ILLEGAL_MOVE = "illegal_move"
    RATE_LIMITED = "rate_limited"
    HINT_UNAVAILABLE = "hint_unavailable"
    REPLACED = "replaced"
    #: The host sent you out of this room; ``retry_after`` says when you may come back.
    KICKED = "kicked"
    #: Cluster: the room's server cannot be reached right now (it may be moving
    #: to another process); send the same message again after ``retry_after``.
    UNAVAILABLE = "unavailable"
    INTERNAL = "internal"
    #: Bot API (docs/bot-api.md): no bot account has that name.
    NO_SUCH_BOT = "no_such_bot"
    #: The bot account has no connection open to this server process.
    BOT_OFFLINE = "bot_offline"
    #: Every connection of the bot account is playing or answering a challenge.
    BOT_BUSY = "bot_busy"
    #: ``accept``/``decline`` of a challenge that is not (or no longer) yours.
    NO_SUCH_CHALLENGE = "no_such_challenge"
    #: ``hello`` with a ``slot`` a person cannot have, or past the bot limit.
    BAD_SLOT = "bad_slot"
    #: Something a bot account may not do (change its name, quick match).
    BOT_ACCOUNT = "bot_account"


class ProtocolError(Exception):
    """A client message the server refuses; becomes an ``error`` message."""

    def __init__(
        self, code: str, message: str, ref: str | None = None, retry_after: float | None = None
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.ref = ref
        self.retry_after = retry_after

    def to_message(self) -> Error:
        return Error(
            code=self.code, message=self.message, ref=self.ref, retry_after=self.retry_after
        )


_decoder: msgspec.json.Decoder[ClientMessage] = msgspec.json.Decoder(ClientMessage)
_encoder = msgspec.json.Encoder()


def decode(raw: str | bytes) -> ClientMessage:
    """Parse and validate one client message or raise :class:`ProtocolError`.

    The typed decoder is the fast path; only when it fails is the text decoded
    a second time, generically, to tell malformed JSON from an unknown type
    from a bad field (three different codes for three different client bugs).
    """
    try:
        msg = _decoder.decode(raw)
    except msgspec.DecodeError as exc:
        typed_error = str(exc)
    except RecursionError:
        # msgspec refuses nesting deeper than the interpreter's recursion limit
        # (about 1,000 levels) without crashing; no message needs more than 4.
        raise ProtocolError(Code.INVALID, TOO_DEEP, peek_type(raw)) from None
    else:
        free = (
            msg.action
            if isinstance(msg, Move)
            else msg.rules
            if isinstance(msg, CreateRoom)
            else None
        )
        if free is not None and not nested_within(free, MAX_DEPTH - 1):
            raise ProtocolError(Code.INVALID, TOO_DEEP, type_of(msg))
        return msg
    try:
        data = msgspec.json.decode(raw)
    except msgspec.DecodeError as exc:
        raise ProtocolError(Code.BAD_JSON, f"malformed JSON: {exc}") from None
    except RecursionError:
        raise ProtocolError(Code.INVALID, TOO_DEEP, peek_type(raw)) from None
    if not isinstance(data, dict):
        raise ProtocolError(Code.INVALID, "a message must be a JSON object")
    kind = data.get("type")
    if not isinstance(kind, str):
        raise ProtocolError(Code.INVALID, "a message needs a string field 'type'")
    if kind not in CLIENT_TYPES:
        known = ", ".join(sorted(CLIENT_TYPES))
        raise ProtocolError(
            Code.UNKNOWN_TYPE, f"unknown message type {kind[:40]!r} (known: {known})", kind[:40]
        )
    raise ProtocolError(Code.INVALID, f"invalid {kind!r} message: {typed_error}", kind)


#: Arrays and objects a client message may nest (the message object is one;
#: a move's cards are three).  Deeper ones are refused before any game code
#: sees them, so nothing recursive (repr, logging) meets a deep value.
MAX_DEPTH: Final = 8
TOO_DEEP: Final = f"JSON nested too deeply (at most {MAX_DEPTH} levels)"


def nested_within(value: Any, depth: int) -> bool:
    """True if ``value`` nests at most ``depth`` levels of lists and dicts (the
    recursion is as deep as ``depth``, never as deep as ``value``)."""
    if isinstance(value, dict):
        children: Any = value.values()
    elif isinstance(value, list):
        children = value
    else:
        return True
    if depth <= 0:
        return False
    for child in children:
        if isinstance(child, _CONTAINERS) and not nested_within(child, depth - 1):
            return False
    return True


_CONTAINERS = (dict, list)


class _Typed(Struct):
    """Any message, read for its ``type`` only (other fields are skipped)."""

    type: str


_peek = msgspec.json.Decoder(_Typed)


def peek_type(raw: str | bytes) -> str | None:
    """The ``type`` of a message without validating it (for the ``ref`` of an
    error about a message that is refused whole), or None if it has none."""
    try:
        kind = _peek.decode(raw).type
    except (msgspec.DecodeError, RecursionError):
        return None
    return kind[:40]


def encode(message: ServerMessage) -> bytes:
    """JSON bytes of a server message (sent as a text frame)."""
    return _encoder.encode(message)


def type_of(message: ClientMessage) -> str:
    return str(message.__struct_config__.tag)
