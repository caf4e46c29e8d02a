#!/usr/bin/env python3
"""A bot for a Kozyr server that plays random legal moves (docs/bot-api.md).
    python examples/random_bot.py --create RandomBot      # make a bot account, print its token
    python examples/random_bot.py --token T               # wait for challenges and accept them
    python examples/random_bot.py --token T --host 2      # host a public 2-seat room for people
Needs only `websockets` (pip install websockets) besides the standard library."""

import argparse
import asyncio
import json
import random
import sys
import urllib.request

import websockets


def create(server: str, name: str) -> str:
    """A new bot account called `name`: its token (shown once: keep it)."""
    body = json.dumps({"name": name}).encode()
    req = urllib.request.Request(f"{server}/api/bots", body, {"content-type": "application/json"})
    with urllib.request.urlopen(req) as resp:
        return str(json.load(resp)["token"])


async def play(args: argparse.Namespace) -> None:
    games = 0
    async with websockets.connect(args.server.replace("http", "ws", 1) + "/ws") as ws:
        async def send(**msg: object) -> None:
            await ws.send(json.dumps(msg))
        await send(type="hello", name="bot", token=args.token, slot=args.slot)  # name: ignored
        async for raw in ws:
            m = json.loads(raw)
            kind = m["type"]
            if kind == "welcome" and args.host:
                await send(type="create_room", seats=args.host, visibility="public")
            elif kind == "challenge":  # a host wants us at their table
                await send(type="accept", challenge=m["challenge"])
            elif kind == "room":  # as host: start once every seat has a player who is ready
                room, you = m["room"], m["you"]
                others = [s for s in room["seats"] if s["seat"] != you["seat"]]
                ready = room["game"] == 0 or all(s["ready"] for s in others)
                if you["host"] and room["state"] == "lobby" and ready and all(
                        s["human"] for s in others):
                    await send(type="start")
            elif kind == "game":  # our turn (or a last call): a random legal move
                calm = [a for a in m["legal"] if a["type"] != "accuse"]
                if calm:
                    await send(type="move", action=random.choice(calm), version=m["version"])
            elif kind == "game_over":
                games += 1
                print(f"game {m['game']} over, durak: {m['durak_name']}", flush=True)
                if args.games and games >= args.games:
                    return
                if args.host:
                    await send(type="back_to_room")
            elif kind == "error" and m["code"] != "stale_version":
                print(f"error {m['code']}: {m['message']}", file=sys.stderr, flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--server", default="http://127.0.0.1:8000")
    ap.add_argument("--create", metavar="NAME", help="make a bot account and print its token")
    ap.add_argument("--token", help="the bot account's token")
    ap.add_argument("--slot", type=int, default=0, help="which of the account's connections")
    ap.add_argument("--host", type=int, metavar="SEATS", help="open a public room of SEATS")
    ap.add_argument("--games", type=int, default=0, help="stop after this many games")
    args = ap.parse_args()
    if args.create:
        print(create(args.server, args.create))
    elif args.token:
        asyncio.run(play(args))
    else:
        ap.error("--create NAME or --token TOKEN")


if __name__ == "__main__":
    main()
