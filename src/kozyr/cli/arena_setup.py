"""What an arena command line means: its rules, its pairings, and the one
command that reproduces a run (``kozyr arena`` and ``--merge`` both need them)."""

from __future__ import annotations

import argparse
import shlex
from typing import Any

from kozyr.arena.schedule import Pairing, make_pairing
from kozyr.arena.spec import ArenaError, parse_spec
from kozyr.engine.rules import Rules, RulesError

#: Players at a table of each team layout (when --players is not given).
_TEAM_PLAYERS = {"2v2": 4, "3v3": 6, "2v2v2": 6}


def _rule_value(name: str, text: str) -> Any:
    choices = Rules.options()[name]
    sample = choices[0]
    if isinstance(sample, bool):
        t = text.strip().lower()
        if t in ("true", "yes", "on", "1"):
            return True
        if t in ("false", "no", "off", "0"):
            return False
    elif isinstance(sample, int):
        try:
            return int(text)
        except ValueError:
            pass
    else:
        return text.strip()
    raise ArenaError(f"rule {name!r} must be one of {list(choices)}, not {text!r}")


def build_rules(args: argparse.Namespace, bots_given: int) -> Rules:
    """The table rules from --players, --variant, --deck and --rule options."""
    options: dict[str, Any] = {}
    known = Rules.options()
    for item in args.rule:
        name, sep, value = item.partition("=")
        name = name.strip().replace("-", "_")
        if not sep or not name:
            raise ArenaError(f"--rule needs NAME=VALUE, not {item!r}")
        if name not in known:
            raise ArenaError(f"unknown rule {name!r} (rules: {', '.join(known)})")
        options[name] = _rule_value(name, value)
    for name in ("players", "variant", "deck"):
        value = getattr(args, name)
        if value is None:
            continue
        if name in options and options[name] != value:
            raise ArenaError(f"--{name} {value} and --rule {name}={options[name]} disagree")
        options[name] = value
    if "players" not in options:
        teams = options.get("teams", "none")
        if args.round_robin:
            options["players"] = 2
        elif teams in _TEAM_PLAYERS:
            options["players"] = _TEAM_PLAYERS[teams]
        elif bots_given:
            options["players"] = bots_given
    try:
        return Rules.from_dict(options)
    except (RulesError, TypeError) as exc:
        raise ArenaError(str(exc)) from None


def build_pairings(args: argparse.Namespace, rules: Rules) -> list[Pairing]:
    if args.round_robin:
        if args.bots:
            raise ArenaError("give either a line-up of bots or --round-robin, not both")
        if rules.players != 2:
            raise ArenaError("--round-robin plays heads-up games: it needs 2 players")
        specs: list[str] = []
        for text in args.round_robin.split(","):
            if text.strip():
                spec = parse_spec(text)
                if spec in specs:
                    raise ArenaError(f"{text.strip()!r} is listed twice in --round-robin")
                specs.append(spec)
        if len(specs) < 2:
            raise ArenaError("--round-robin needs at least two bots")
        pairs = [(a, b) for i, a in enumerate(specs) for b in specs[i + 1 :]]
        return [make_pairing(i, [a, b], 2, 0) for i, (a, b) in enumerate(pairs)]
    if not args.bots:
        raise ArenaError("name the bots to play (e.g. 'kozyr arena 10 4') or use --round-robin")
    lineup = [parse_spec(b) for b in args.bots]
    return [make_pairing(0, lineup, rules.players, rules.team_count)]


def canonical_command(args: argparse.Namespace, rules: Rules, deals: int) -> str:
    """A command that reproduces the run (every result-changing option spelled out)."""
    parts = ["kozyr", "arena"]
    if args.round_robin:
        specs = [parse_spec(t) for t in args.round_robin.split(",") if t.strip()]
        parts += ["--round-robin", ",".join(specs)]
        inferred = 2
    else:
        parts += [parse_spec(b) for b in args.bots]
        inferred = _TEAM_PLAYERS.get(rules.teams, len(args.bots))
    defaults = Rules().to_dict()
    chosen = rules.to_dict()
    if chosen["players"] != inferred:
        parts += ["--players", str(chosen["players"])]
    if chosen["variant"] != defaults["variant"]:
        parts += ["--variant", chosen["variant"]]
    if chosen["deck"] != defaults["deck"]:
        parts += ["--deck", str(chosen["deck"])]
    for name, value in chosen.items():
        if name in ("players", "variant", "deck") or value == defaults[name]:
            continue
        text = str(value).lower() if isinstance(value, bool) else str(value)
        parts += ["--rule", f"{name}={text}"]
    if args.first_deal:
        parts += ["--first-deal", str(args.first_deal)]
    parts += ["--deals", str(deals), "--seed", str(args.seed), "--workers", str(args.workers)]
    return shlex.join(parts)
