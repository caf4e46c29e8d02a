"""Unit tests of the server's pure parts: protocol, limits, sessions, bots, store."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import sqlite3
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from kozyr.bench.launch import listening_port, serve_command
from kozyr.engine.actions import Action, Kind
from kozyr.engine.deal import Deal
from kozyr.engine.record import GameRecord
from kozyr.engine.rules import Rules
from kozyr.engine.state import GameState
from kozyr.engine.view import view_of
from kozyr.server import protocol as p
from kozyr.server.edge.ratelimit import TokenBucket
from kozyr.server.storage.store import Store, _checkpoint, _LoopMoves
from kozyr.server.tables.bot_pool import BotPool, choose_in_worker, view_from_wire, view_to_wire
from kozyr.server.tables.game_session import GameSession
from kozyr.server.tables.lobby import check_name, graphemes
from kozyr.server.tables.passphrase import MemoryPassphraseThrottle, PassphraseThrottle


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


# ---------------------------------------------------------------- protocol
@pytest.mark.parametrize(
    ("raw", "code"),
    [
        ("{", "bad_json"),
        (b"\xff", "bad_json"),
        ("42", "invalid_message"),
        ('{"name": "x"}', "invalid_message"),
        ('{"type": 5}', "invalid_message"),
        ('{"type": "fly"}', "unknown_type"),
        ('{"type": "hello", "name": 5}', "invalid_message"),
        ("[" * 2000 + "]" * 2000, "invalid_message"),  # nested too deeply
        ('{"type": "move", "version": 1, "action": %s}' % ("[" * 8 + "]" * 8), "invalid_message"),
        ('{"type": "hello", "name": "abc", "x": 1}', "invalid_message"),
        ('{"type": "create_room", "seats": 1}', "invalid_message"),
        ('{"type": "create_room", "move_time": 45}', "invalid_message"),
        ('{"type": "create_room", "bot_level": 11}', "invalid_message"),
        ('{"type": "move", "action": {}, "version": -1}', "invalid_message"),
        ('{"type": "join", "room": "../../etc/passwd"}', "invalid_message"),
        ('{"type": "hello", "name": "abc", "token": "short"}', "invalid_message"),
        ('{"type": "hello", "name": "abc", "slot": -1}', "invalid_message"),
        ('{"type": "challenge", "seat": 6, "bot": "b"}', "invalid_message"),
        ('{"type": "challenge", "seat": 1, "bot": ""}', "invalid_message"),
        ('{"type": "accept", "challenge": "../../x"}', "invalid_message"),
        ('{"type": "decline"}', "invalid_message"),
    ],
)
def test_decode_refuses_with_a_specific_code(raw: str | bytes, code: str) -> None:
    with pytest.raises(p.ProtocolError) as info:
        p.decode(raw)
    assert info.value.code == code and info.value.message


def test_decode_accepts_every_client_type() -> None:
    assert isinstance(p.decode('{"type": "hello", "name": "Анна"}'), p.Hello)
    msg = p.decode('{"type": "create_room", "seats": 3, "rules": {"deck": 52}, "move_time": null}')
    assert isinstance(msg, p.CreateRoom) and msg.move_time is None and msg.seats == 3
    move = p.decode('{"type": "move", "action": {"seat": 0, "type": "take"}, "version": 4}')
    assert isinstance(move, p.Move) and move.version == 4
    for kind in ("start", "back_to_room", "rematch", "leave", "sync"):
        assert p.type_of(p.decode(f'{{"type": "{kind}"}}')) == kind
    assert {
        "hello",
        "create_room",
        "join",
        "seat_bot",
        "free_seat",
        "start",
        "move",
        "back_to_room",
        "rematch",
        "leave",
        "sync",
        "sit",
        "stand",
        "kick",
        "ready",
        "rename",
        "quick_match",
        "say",
        "react",
        "ping",
        "challenge",
        "accept",
        "decline",
        "hint",
    } == p.CLIENT_TYPES
    assert p.decode('{"type": "hint"}') == p.Hint()
    # Issue 28's bot API: challenges, and a bot's further connections.
    ch = p.decode('{"type": "challenge", "seat": 1, "bot": "RandomBot"}')
    assert ch == p.Challenge(seat=1, bot="RandomBot")
    assert p.decode('{"type": "accept", "challenge": "abcdefgh12"}') == p.Accept(
        challenge="abcdefgh12"
    )
    assert p.decode('{"type": "decline", "challenge": "abcdefgh12"}') == p.Decline(
        challenge="abcdefgh12"
    )
    hello = p.decode('{"type": "hello", "name": "x", "slot": 3}')
    assert isinstance(hello, p.Hello) and hello.slot == 3
    # Issue 25's messages: seats between games, quick match, phrases, heartbeat.
    sit = p.decode('{"type": "sit", "seat": 2}')
    assert isinstance(sit, p.Sit) and sit.seat == 2
    assert isinstance(p.decode('{"type": "stand"}'), p.Stand)
    kick = p.decode('{"type": "kick", "spectator": 0}')
    assert isinstance(kick, p.Kick) and kick.spectator == 0 and kick.seat is None
    assert p.decode('{"type": "ready", "ready": true}') == p.Ready(ready=True)
    quick = p.decode('{"type": "quick_match", "variant": "perevodnoy", "seats": 3}')
    assert quick == p.QuickMatch(variant="perevodnoy", seats=3)
    assert p.decode('{"type": "say", "phrase": "good_game"}') == p.Say(phrase="good_game")
    assert p.decode('{"type": "react", "reaction": "clap"}') == p.React(reaction="clap")
    assert p.decode('{"type": "ping", "t": 5}') == p.Ping(t=5)
    # No free text: a phrase or reaction outside the fixed sets is refused.
    for bad in ('{"type": "say", "phrase": "you are a fool"}', '{"type": "react", "reaction": "x"}',
                '{"type": "quick_match", "variant": "cheating"}'):  # fmt: skip
        with pytest.raises(p.ProtocolError) as err:
            p.decode(bad)
        assert err.value.code == p.Code.INVALID


def test_server_messages_encode_with_their_type() -> None:
    err = p.encode(p.Error(code="x", message="y", retry_after=1.5))
    assert err.startswith(b'{"type":"error"') and b'"retry_after":1.5' in err


def test_listening_port_reads_only_the_listening_line() -> None:
    assert listening_port('{"event":"listening","port":8123,"db":"sqlite:///x.db"}') == 8123
    assert listening_port('{"event": "listening", "port": 9}') == 9
    assert listening_port('{"event":"move","ms":1.5}') is None
    assert listening_port('{"event":"raw","message":"listening"}') is None
    assert listening_port("listening, not JSON") is None
    cmd = serve_command("sqlite:///k.db", "--bot-workers", "1")
    assert cmd[-6:] == ["--port", "0", "--db", "sqlite:///k.db", "--bot-workers", "1"]


def test_names() -> None:
    """1-12 user-perceived characters after trimming; no control characters."""
    assert check_name("  Anna   K ") == "Anna K"
    assert check_name("tab\there") == "tab here"
    assert check_name("小明") == "小明" and check_name("翔太") == "翔太"
    assert check_name(" A ") == "A" and check_name("Ли") == "Ли"
    assert check_name("Zoe\u0308") == "Zoë"  # NFC
    assert check_name("é" * 12) == "é" * 12
    assert check_name("山田 花子さんです。ね") == "山田 花子さんです。ね"
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"  # one character, five code points
    assert graphemes(family) == 1 and graphemes("\U0001f1f7\U0001f1fa\U0001f1ef\U0001f1f5") == 2
    assert check_name(family * 12) == family * 12
    assert graphemes("e\u0301" * 3) == 3
    refused = {
        "": "empty",
        "   ": "empty",
        "\u3000\u00a0": "empty",
        "nul\x00x": "control",
        "bell\x07": "control",
        "a\u202eb": "control",  # a right-to-left override
        "\u200b": "control",  # a zero width space
        "\u0301\u0301": "letter",
        "x" * 13: "at most 12",
        "小" * 13: "at most 12",
        family * 13: "at most 12",
        "x" * 65: "at most 12",  # over 64 code points: bad_name, not invalid_message
    }
    for bad, reason in refused.items():
        with pytest.raises(p.ProtocolError) as info:
            check_name(bad)
        assert info.value.code == "bad_name" and reason in info.value.message, (bad, info.value)


# ---------------------------------------------------------------- limits
def test_token_bucket_allows_bursts_then_the_rate() -> None:
    clock = Clock()
    bucket = TokenBucket(rate=2, burst=3, clock=clock)
    assert [bucket.allow() for _ in range(4)] == [True, True, True, False]
    assert bucket.violations == 1
    clock.now += 0.5
    assert bucket.allow() and not bucket.allow()
    clock.now += 100
    assert sum(bucket.allow() for _ in range(10)) == 3


async def passphrase_backoff_table(t: PassphraseThrottle, clock: Clock, hold: float) -> None:
    """What a throttle with ``base=1.0, cap=5.0`` on ``clock`` must answer
    (the memory one here, the Redis one in test_cluster_throttle.py)."""
    assert await t.begin("r", "a") == 0
    # While "a" is being checked at "r", nobody else may try "r", nor "a" elsewhere.
    assert await t.begin("r", "b") == 1.0
    assert await t.begin("s", "a") == 1.0
    assert await t.begin("s", "b") == 0
    assert await t.end("s", "b", ok=True) == 0
    assert await t.end("r", "a", ok=False) == 1.0
    assert await t.begin("r", "c") == 1.0  # the room backs off for every address
    assert await t.begin("s", "a") == 1.0  # the address backs off at every room
    clock.now += 0.25
    assert await t.begin("s", "a") == 0.75  # the rest of the wait
    clock.now += 0.75
    for delay in (2.0, 4.0, 5.0):  # doubling, capped
        assert await t.begin("r", "a") == 0
        assert await t.end("r", "a", ok=False) == delay
        clock.now += delay
    assert await t.begin("r", "b") == 0
    assert await t.end("r", "b", ok=True) == 0  # clears the room...
    assert await t.begin("r", "c") == 0
    assert await t.end("r", "c", ok=True) == 0
    assert await t.begin("q", "a") == 0  # ...the address's wait had run out
    assert await t.end("q", "a", ok=False) == 5.0  # but its count goes on
    clock.now += 5.0 + 5.0 + 0.1  # forgotten `cap` after the wait ran out
    assert await t.begin("q", "a") == 0
    assert await t.end("q", "a", ok=False) == 1.0
    # A reservation that never ended frees itself.
    assert await t.begin("z", "y") == 0
    clock.now += hold - 0.1
    assert await t.begin("z", "x") == 1.0
    clock.now += 0.2
    assert await t.begin("z", "y") == 0


def test_passphrase_backoff_doubles_per_room_and_per_address() -> None:
    """Both counters back off (1, 2, 4 ... capped); an attempt must pass both;
    a reserved attempt holds the room and the address until it ends."""
    clock = Clock()
    throttle = MemoryPassphraseThrottle(base=1.0, cap=5.0, clock=clock)
    asyncio.run(passphrase_backoff_table(throttle, clock, MemoryPassphraseThrottle.HOLD))


# ---------------------------------------------------------------- sessions
def test_session_events_are_public_and_draws_add_up() -> None:
    rng = random.Random(2)
    for rules in (
        Rules(players=2),
        Rules(players=4, variant="perevodnoy"),
        Rules(players=6),
        Rules(players=3, variant="perevodnoy", throw_in_after_take=False),
    ):
        s = GameSession.deal(rules, 1, 10)
        assert s.version == 10
        deck = s.state.deck_count
        while not s.over:
            applied = s.apply(rng.choice(s.state.legal_actions()))
            assert applied.version == s.version
            if applied.action.kind == Kind.TAKE and not rules.throw_in_after_take:
                assert applied.round_end == "took"  # no throw-ins: the take ends the round
            if applied.round_end:
                assert applied.draws is not None and sum(applied.draws) == deck - applied.deck
            else:
                assert applied.draws is None and applied.deck == deck
            deck = applied.deck
            spect = json.loads(bytes(s.spectator_view()))
            assert "hand" not in spect and spect["seat"] is None
        again = GameSession.resume(s.record, 1, 10)
        assert again.state.to_json() == s.state.to_json() and again.version == s.version
        assert (
            sum(s.cards_left()) == s.state.hands[s.result.durak].bit_count()
            if (s.result and s.result.durak is not None)
            else True
        )


def test_session_views_are_exactly_the_engines_views() -> None:
    """The frames share one public part per move, encoded once
    (game_session.seat_view); each seat's view and legal actions must still be
    exactly what view_of gives, key for key in the same order, and a frame the
    same bytes as one made from view_of."""
    rng = random.Random(4)
    for rules in (
        Rules(players=2),
        Rules(players=4, variant="perevodnoy"),
        Rules(players=4, cheating=True),
        Rules(players=3, cheating=True, variant="perevodnoy"),
    ):
        s = GameSession.deal(rules, 1, 0)
        positions = 0
        while True:
            for seat in range(rules.players):
                view = view_of(s.state, seat)
                expected = view.to_json()
                raw, legal = s.seat_view(seat)
                got = json.loads(bytes(raw))
                assert list(got.items()) == list(expected.items())  # same key order
                assert legal == [a.to_json() for a in view.legal]
                frames = [
                    p.GameFrame(
                        game=1, version=s.version, seat=seat, view=view_json, legal=legal,
                        to_move=None, deadline=None, time_left=None,
                    )
                    for view_json in (raw, expected)
                ]  # fmt: skip
                assert p.encode(frames[0]) == p.encode(frames[1])
            spect = view_of(s.state, 0).to_json()
            del spect["hand"]
            spect["seat"] = None
            assert list(json.loads(bytes(s.spectator_view())).items()) == list(spect.items())
            positions += 1
            if s.over:
                break
            s.apply(rng.choice(s.state.legal_actions()))
        assert positions > 20


def test_a_resumed_session_has_the_history_of_its_record() -> None:
    """A room restored after a restart replays its record: the state's log, and
    so every view's public history, must be the moves played before."""
    rng = random.Random(3)
    s = GameSession.deal(Rules(players=3, variant="perevodnoy"), 1, 0)
    played: list[Action] = []
    for _ in range(25):
        if s.over:
            break
        action = rng.choice(s.state.legal_actions())
        s.apply(action)
        played.append(action)
    assert s.state.log == played
    again = GameSession.resume(s.record, 1, 0)
    assert again.state.log == played
    assert s.record.replay().state.log == played
    for seat in range(3):
        assert view_of(again.state, seat).history == tuple(played)


def test_rematch_deal_carries_the_previous_durak() -> None:
    s = GameSession.deal(Rules(first_attacker="after_durak"), 2, 50, previous_durak=3)
    assert s.record.deal.previous_durak == 3
    assert s.header()["deal"]["previous_durak"] == 3 and s.header()["actions"] == []
    assert s.state.to_move == 0  # the seat after the durak leads


# ---------------------------------------------------------------- bots
def test_views_cross_process_boundaries_as_tuples() -> None:
    state = GameState.from_seed(Rules(players=3, variant="perevodnoy"), 9)
    rng = random.Random(1)
    played: list[Action] = []
    while not state.game_over:
        view = view_of(state, state.to_move or 0)
        assert view.history == tuple(played)
        back = view_from_wire(view_to_wire(view))
        assert back == view
        # The public history crosses too, as Actions again (not bare tuples).
        assert back.history == tuple(played)
        assert all(type(a) is Action and isinstance(a.kind, Kind) for a in back.history)
        seat, kind, cards, target = choose_in_worker(1, view_to_wire(view))
        assert Action(seat, Kind(kind), cards, target) in view.legal
        action = rng.choice(state.legal_actions())
        state.do(action)
        played.append(action)
    assert played and view_from_wire(view_to_wire(view_of(state, 0))).history == tuple(played)


def test_bot_pool_in_a_thread_and_in_processes() -> None:
    state = GameState.from_seed(Rules(), 4)
    view = view_of(state, state.to_move or 0)

    async def ask(workers: int) -> Action:
        pool = BotPool(workers)
        try:
            await pool.warm_up()
            return await pool.choose(2, view)
        finally:
            pool.shutdown()

    assert asyncio.run(ask(0)) in view.legal
    assert asyncio.run(ask(1)) in view.legal


# ---------------------------------------------------------------- store
@contextlib.asynccontextmanager
async def _store_with_a_game(path: Path, inline: bool) -> AsyncIterator[tuple[Store, int]]:
    """A started store on the SQLite file ``path`` (moves committed on the event
    loop if ``inline``) holding one new two-seat game: (store, game id)."""
    store = Store(f"sqlite:///{path}", inline_moves=inline)
    store.start()
    try:
        s = GameSession.deal(Rules(players=2), 1, 0)
        yield store, await store.create_game("r", 1, 0, s.header())
    finally:
        store.close()


@pytest.mark.parametrize("inline", [False, True], ids=["store-thread", "event-loop"])
def test_store_a_bad_move_row_fails_alone(tmp_path: Path, inline: bool) -> None:
    """Moves are committed in batches straight on the driver (on the store
    thread, or on the event loop for one process on SQLite); a row the database
    refuses (the same index twice) fails its own add_move and no other."""

    async def scenario() -> None:
        async with _store_with_a_game(tmp_path / "k.db", inline) as (store, gid):
            assert (store._loop_moves is not None) == inline
            await store.add_move(gid, 0, {"seat": 0, "kind": "pass"})
            got = await asyncio.gather(
                store.add_move(gid, 1, {"seat": 0, "kind": "pass"}),
                store.add_move(gid, 0, {"seat": 1, "kind": "take"}),  # index 0 is taken
                store.add_move(gid, 2, {"seat": 1, "kind": "pass"}),
                return_exceptions=True,
            )
            assert got[0] is None and got[2] is None
            assert isinstance(got[1], Exception)
            await store.add_move(gid, 3, {"seat": 0, "kind": "pass"})  # the store carries on

            def stored(conn: Any) -> list[tuple[int, str]]:
                rows = conn.exec_driver_sql(
                    "SELECT idx, action FROM moves WHERE game_id = ? ORDER BY idx", (gid,)
                )
                return [(int(i), str(a)) for i, a in rows]

            assert await store.call(stored) == [
                (0, '{"seat":0,"kind":"pass"}'),
                (1, '{"seat":0,"kind":"pass"}'),
                (2, '{"seat":1,"kind":"pass"}'),
                (3, '{"seat":0,"kind":"pass"}'),
            ]

    asyncio.run(scenario())


@pytest.mark.parametrize("read_only", [True, False], ids=["read", "write"])
def test_a_slow_read_does_not_hold_up_the_moves_committed_on_the_event_loop(
    tmp_path: Path, read_only: bool
) -> None:
    """One process on SQLite commits moves on the event loop under Store.lock.
    A store-thread job that only reads (a long game's record) runs without the
    lock, so a move committed meanwhile does not wait for it; a job that may
    write holds the lock, and the move waits."""

    async def scenario() -> None:
        async with _store_with_a_game(tmp_path / "k.db", inline=True) as (store, gid):
            started = threading.Event()

            def slow(conn: Any) -> int:
                count = int(conn.exec_driver_sql("SELECT count(*) FROM moves").scalar())
                started.set()
                time.sleep(1.0)
                return count

            job = asyncio.ensure_future(store.call(slow, read_only=read_only))
            assert await asyncio.to_thread(started.wait, 10)
            begun = time.monotonic()
            await store.add_move(gid, 0, {"seat": 0, "kind": "pass"})
            waited = time.monotonic() - begun
            if read_only:
                assert waited < 0.5 and not job.done()
            else:
                assert waited > 0.5
            assert await job == 0
            assert (await store.load_game(gid)) is not None

    asyncio.run(scenario())


def test_moves_written_on_the_event_loop_are_checkpointed_by_the_store_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One process on SQLite commits its moves on the event loop (never running
    a checkpoint there); every CHECKPOINT_EVERY commits the store thread copies
    the WAL into the database file.  Room saves on the store thread meanwhile
    never meet "database is locked"."""
    monkeypatch.setattr(_LoopMoves, "CHECKPOINT_EVERY", 4)
    path = tmp_path / "k.db"

    def in_file_only() -> int:
        """Moves in the database file itself, ignoring the WAL (immutable=1)."""
        with contextlib.closing(sqlite3.connect(f"file:{path}?immutable=1", uri=True)) as db:
            return int(db.execute("SELECT count(*) FROM moves").fetchone()[0])

    async def scenario() -> None:
        async with _store_with_a_game(path, inline=True) as (store, gid):
            await store.call(_checkpoint)  # the tables themselves into the file
            for i in range(3):
                await store.add_move(gid, i, {"seat": 0, "kind": "pass"})
            assert await asyncio.to_thread(in_file_only) == 0  # only in the WAL so far
            for i in range(3, 8):
                store.save_room("r", "playing", {"seats": [], "i": i})
                await store.add_move(gid, i, {"seat": 0, "kind": "pass"})
            await store.call(lambda _conn: None)  # the checkpoint job ran before this
            assert 4 <= await asyncio.to_thread(in_file_only) <= 8
            assert store._loop_moves is not None and store._loop_moves.commits == 8
            loaded = await store.load_game(gid)
            assert loaded is not None and len(loaded[0].actions) == 8

    asyncio.run(scenario())


def test_store_keeps_games_moves_records_and_results(tmp_path: Path) -> None:
    async def scenario() -> None:
        store = Store(f"sqlite:///{tmp_path / 'db' / 'k.db'}")
        store.start()
        try:
            s = GameSession.deal(Rules(players=2), 1, 0, meta={"room": "r"})
            gid = await store.create_game("r", 1, 0, s.header())
            rng = random.Random(5)
            moves = []
            while not s.over:
                a = rng.choice(s.state.legal_actions())
                s.apply(a)
                moves.append(store.add_move(gid, len(s.record.actions) - 1, a.to_json()))
                if len(s.record.actions) == 10:
                    await asyncio.gather(*moves)
                    moves = []
                    loaded = await store.load_game(gid)
                    assert loaded is not None and loaded[0].actions == s.record.actions[:10]
                    assert await store.finished_record(gid) is None
            await asyncio.gather(*moves)
            assert s.result is not None
            await store.finish_game(
                gid, s.record.to_json(s.result.to_json()), "finished", [("k1", "anna", 3, "win")]
            )
            record = await store.finished_record(gid)
            assert record is not None and record["result"] == s.result.to_json()
            assert len(record["actions"]) == len(s.record.actions)
            await store.add_player("k1", "anna")
            await store.add_player("k1", "anya")
            assert await store.player_name("k1") == "anya"
            assert await store.player_name("nobody") is None
            assert await store.player_results("k1") == {
                3: {"games": 1, "win": 1, "loss": 0, "draw": 0}
            }
            store.save_room("r", "lobby", {"x": 1})
            store.save_room("r", "playing", {"x": 2})
            assert await store.open_rooms() == [("r", {"x": 2})]
            store.save_room("r", "over", {"x": 3}, closed=True)
            assert await store.open_rooms() == []
            assert store.commits < 40  # moves were group-committed
        finally:
            store.close()

    asyncio.run(scenario())


def test_places_group_the_seats_that_went_out_together_and_end_with_the_durak() -> None:
    """game_over's ``places`` (docs/protocol.md): every seat once, first out
    first, seats that left at the same round's end together, the durak last;
    and the same order after the room was rebuilt from its record."""
    rng = random.Random(5)
    seen_tie = False
    for seed, players in enumerate((2, 3, 4, 6, 2, 3, 4, 6, 3, 4, 5, 6)):
        rules = Rules(players=players)
        record = GameRecord(rules, Deal.from_seed(rules, 1000 + seed), [], {})
        s = GameSession(record, record.start(), 1, 0)
        out_at: dict[int, int] = {}
        while not s.over:
            known = list(s.state.out)
            s.apply(rng.choice(s.state.legal_actions()))
            for seat in s.state.out[len(known) :]:
                out_at[seat] = len(s.record.actions)
        places = s.places()
        assert sorted(seat for group in places for seat in group) == list(range(players))
        flat = [seat for group in places for seat in group]
        assert flat[: len(s.state.out)] == list(s.state.out)
        for group in places:
            if len(group) > 1 and all(seat in out_at for seat in group):
                seen_tie = True
            moments = {out_at.get(seat) for seat in group}
            assert len(moments) == 1, (places, out_at)
        assert s.result is not None
        if s.result.durak is not None:
            assert places[-1] == [s.result.durak]
            assert s.cards_left()[s.result.durak] > 0
        assert GameSession.resume(s.record, 1, 0).places() == places
    assert seen_tie  # seats leaving together do happen in these games


def test_a_room_unsure_of_its_lease_sends_nothing() -> None:
    """Cluster mode: past its fence's ``valid_until`` (the lease may have run
    out, e.g. the process was stopped) a room's players are sent nothing, so a
    stalled owner never shows a table another process may have moved on."""
    import time
    from types import SimpleNamespace

    from kozyr.server.storage.store import Fence
    from kozyr.server.tables.rooms import Player

    sent: list[str] = []
    conn = SimpleNamespace(send=lambda m: sent.append(type(m).__name__), send_raw=sent.append)
    fence = Fence("room1", 1)
    pl = Player("key", "anna", conn=conn, room=SimpleNamespace(fence=fence))  # type: ignore[arg-type]
    pl.send_raw("a")  # a fence made without a lease deadline: sends
    fence.valid_until = time.monotonic() - 0.001
    assert fence.stale()
    pl.send_raw("b")
    pl.send(p.Left(room="room1"))
    fence.valid_until = time.monotonic() + 5  # renewed
    pl.send_raw("c")
    assert sent == ["a", "c"]
    alone = Player("key2", "boris", conn=conn)  # in no room: always sends
    alone.send_raw("d")
    assert sent[-1] == "d"
