"""Bot accounts: players marked as programs (docs/bot-api.md).

Why a module of its own: a bot account is a profile (a ``players`` row) with
the ``bot`` flag and a unique case-folded ``bot_name`` (migration
``0003_bot_accounts``); everything the server asks about bot accounts goes
through :class:`BotAccounts`, so the rest never queries those columns.

A bot account is known by the hash of its token, like a person.  It may keep
up to :data:`BOT_MAX_GAMES` connections open at once (``hello`` with ``slot``
0, 1, ...); each plays in at most one room, so that is its limit on concurrent
games.  Every slot is a player of its own (its key derives from the token and
the slot), named with the account's name and marked with the account's key.
"""

from __future__ import annotations

import hashlib
import secrets
import time
import unicodedata
from dataclasses import dataclass
from typing import Final

from sqlalchemy import Connection, insert, select, true
from sqlalchemy.exc import IntegrityError

from .. import protocol as p
from ..storage.ids import new_public_id
from ..storage.schema import players
from ..storage.store import Store

#: Games one bot account may play at once (its connections, ``hello.slot``).
BOT_MAX_GAMES: Final = 4
#: ``POST /api/bots``: accounts one client address may create, on average one
#: per :data:`CREATE_EVERY` seconds, in bursts of ``--bot-burst`` (3).
CREATE_EVERY: Final = 60.0
#: Bot tokens start with this, so a token in a config file says what it is.
TOKEN_PREFIX: Final = "bot_"


@dataclass(frozen=True)
class BotAccount:
    key: str
    name: str


class NameTaken(Exception):
    """Another bot account has this name (in any case)."""


def token_key(token: str) -> str:
    """The player key of a token (the same hash as a person's)."""
    return hashlib.sha256(token.encode()).hexdigest()


def slot_key(token: str, slot: int) -> str:
    """The player key of a bot's connection ``slot``: slot 0 is the account
    itself; the others hash ``token/slot`` (no person's token has a ``/``)."""
    return token_key(token if slot == 0 else f"{token}/{slot}")


def folded(name: str) -> str:
    return unicodedata.normalize("NFC", name).casefold()


class BotAccounts:
    """The bot accounts, in the database, with the ones seen kept in memory
    (an account never changes once made)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._by_key: dict[str, BotAccount] = {}
        #: Slot keys known to have their ``players`` row.
        self._slots: set[str] = set()

    async def create(self, name: str) -> tuple[BotAccount, str]:
        """A new account named ``name`` (already checked by the rule of *Names*)
        and its token, which is shown this once and never stored."""
        token = TOKEN_PREFIX + secrets.token_urlsafe(24)
        key = token_key(token)
        now = time.time()

        def job(conn: Connection) -> bool:
            taken = conn.execute(
                select(players.c.key).where(players.c.bot_name == folded(name))
            ).first()
            if taken is not None:
                return False
            conn.execute(
                insert(players).values(
                    key=key,
                    name=name,
                    created_at=now,
                    public_id=new_public_id(),
                    bot=True,
                    bot_name=folded(name),
                )
            )
            return True

        try:
            made = await self.store.call(job)
        except IntegrityError:  # two requests for one name at the same moment
            made = False
        if not made:
            raise NameTaken(name)
        account = BotAccount(key, name)
        self._by_key[key] = account
        return account, token

    async def by_key(self, key: str) -> BotAccount | None:
        if key in self._by_key:
            return self._by_key[key]

        def job(conn: Connection) -> tuple[str, str] | None:
            row = conn.execute(
                select(players.c.key, players.c.name).where(
                    players.c.key == key, players.c.bot == true()
                )
            ).first()
            return None if row is None else (str(row[0]), str(row[1]))

        row = await self.store.call(job, read_only=True)
        account = None if row is None else BotAccount(*row)
        if account is not None:
            self._by_key[key] = account
        return account

    async def by_name(self, name: str) -> BotAccount | None:
        """The account called ``name`` (any case), or None."""

        def job(conn: Connection) -> tuple[str, str] | None:
            row = conn.execute(
                select(players.c.key, players.c.name).where(players.c.bot_name == folded(name))
            ).first()
            return None if row is None else (str(row[0]), str(row[1]))

        row = await self.store.call(job, read_only=True)
        return None if row is None else BotAccount(*row)

    async def identify(self, token: str | None, slot: int) -> tuple[BotAccount, str] | None:
        """At ``hello``: (account, player key of the slot) if ``token`` is a bot
        account's, else None (a person).  ``slot`` is refused (``bad_slot``) past
        :data:`BOT_MAX_GAMES` and for people, who have one connection."""
        account = None if token is None else await self.by_key(token_key(token))
        if account is None:
            if slot:
                raise p.ProtocolError(
                    p.Code.BAD_SLOT, "only bot accounts open more than one connection", "hello"
                )
            return None
        if slot >= BOT_MAX_GAMES:
            raise p.ProtocolError(
                p.Code.BAD_SLOT,
                f"a bot account plays at most {BOT_MAX_GAMES} games at once "
                f"(slots 0 to {BOT_MAX_GAMES - 1})",
                "hello",
            )
        assert token is not None
        key = slot_key(token, slot)
        if key != account.key:
            await self._slot_row(key, account)
        return account, key

    async def _slot_row(self, key: str, account: BotAccount) -> None:
        """A slot's own ``players`` row, marked as a bot (no ``bot_name``: the
        name belongs to the account), so whatever a game stores about the seat
        (history, settling) knows it was the bot's."""
        if key in self._slots:
            return
        now = time.time()

        def job(conn: Connection) -> None:
            if conn.execute(select(players.c.key).where(players.c.key == key)).first() is None:
                conn.execute(
                    insert(players).values(
                        key=key,
                        name=account.name,
                        created_at=now,
                        public_id=new_public_id(),
                        bot=True,
                    )
                )

        await self.store.call(job)
        self._slots.add(key)
